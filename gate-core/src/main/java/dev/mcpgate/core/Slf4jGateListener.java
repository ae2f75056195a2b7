package dev.mcpgate.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Logs every decision through SLF4J, to the gate's logger ({@code
 * dev.mcpgate.core.IdempotencyGate}, where the gate's own warnings and errors go too, so that one
 * call's lines are under one logger): DEBUG for the routine ones (acquired, replayed, completed,
 * released), INFO for takeovers and refusals (those before the gate too, by tool and reason: they
 * have no tenant or key to name), WARN for calls the store could not claim, unknown outcomes, lost
 * leases and results not stored, ERROR for failed store writes.
 */
public final class Slf4jGateListener implements GateListener {
  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyGate.class);

  @Override
  public void onEvent(GateEvent e) {
    if (e.type() == GateEvent.Type.REJECTED) {
      LOG.info(
          "REJECTED {} tool {} (key source {}): {}",
          e.rejection(),
          e.tool(),
          e.keySource() == null ? "none" : e.keySource(),
          e.message());
      return;
    }
    String label =
        e.isTakeover()
            ? "TAKEOVER"
            : e.reason() != null
                ? "REFUSED " + e.reason()
                : e.failure() != null ? "FAILED " + e.failure() : e.type().name();
    LOG.atLevel(levelOf(e))
        .setCause(e.error())
        .log("{} {}{}: {}", label, e.id(), attemptOf(e), e.message());
  }

  /**
   * @return {@code " attempt N [fingerprint]"} for an event of an attempt (without the brackets
   *     when it names no token); empty for one that concerns no attempt (a conflict, a claim the
   *     store could not make), which has nothing to say there
   */
  static String attemptOf(GateEvent e) {
    if (e.attempt() == 0) {
      return "";
    }
    String token = e.tokenFingerprint() == null ? "" : " [" + e.tokenFingerprint() + "]";
    return " attempt " + e.attempt() + token;
  }

  /**
   * @return the level {@code e} is logged at
   */
  static Level levelOf(GateEvent e) {
    return switch (e.type()) {
      case ACQUIRED, REPLAYED, COMPLETED, RELEASED -> e.isTakeover() ? Level.INFO : Level.DEBUG;
      case REFUSED, REJECTED -> Level.INFO;
      case LEASE_RENEWED -> Level.TRACE;
      case FAILED, MARKED_UNKNOWN, LEASE_LOST, LEASE_RENEWAL_FAILED, RESULT_NOT_STORED ->
          Level.WARN;
      case STORE_FAILED -> Level.ERROR;
    };
  }
}
