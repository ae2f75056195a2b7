package dev.mcpgate.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs every decision through SLF4J, to the gate's logger ({@code
 * dev.mcpgate.core.IdempotencyGate}, where the gate's own warnings and errors go too, so that one
 * call's lines are under one logger): DEBUG for the routine ones (acquired, replayed, completed,
 * released), INFO for takeovers and refusals (those before the gate too, by tool and reason: they
 * have no tenant or key to name), WARN for unknown outcomes, lost leases and results not stored,
 * ERROR for failed store writes.
 */
public final class Slf4jGateListener implements GateListener {
  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyGate.class);

  @Override
  public void onEvent(GateEvent e) {
    String label =
        e.isTakeover()
            ? "TAKEOVER"
            : e.reason() != null ? "REFUSED " + e.reason() : e.type().name();
    switch (e.type()) {
      case ACQUIRED, REPLAYED, COMPLETED, RELEASED -> {
        if (e.isTakeover()) {
          LOG.info(
              "{} {} attempt {} [{}]: {}",
              label,
              e.id(),
              e.attempt(),
              e.tokenFingerprint(),
              e.message(),
              e.error());
        } else {
          LOG.debug(
              "{} {} attempt {} [{}]: {}",
              label,
              e.id(),
              e.attempt(),
              e.tokenFingerprint(),
              e.message(),
              e.error());
        }
      }
      case REJECTED ->
          LOG.info(
              "REJECTED {} tool {} (key source {}): {}",
              e.rejection(),
              e.tool(),
              e.keySource() == null ? "none" : e.keySource(),
              e.message());
      case REFUSED ->
          LOG.info(
              "{} {} attempt {} [{}]: {}",
              label,
              e.id(),
              e.attempt(),
              e.tokenFingerprint(),
              e.message(),
              e.error());
      case LEASE_RENEWED ->
          LOG.trace(
              "{} {} attempt {} [{}]: {}",
              label,
              e.id(),
              e.attempt(),
              e.tokenFingerprint(),
              e.message(),
              e.error());
      case MARKED_UNKNOWN, LEASE_LOST, LEASE_RENEWAL_FAILED, RESULT_NOT_STORED ->
          LOG.warn(
              "{} {} attempt {} [{}]: {}",
              label,
              e.id(),
              e.attempt(),
              e.tokenFingerprint(),
              e.message(),
              e.error());
      case STORE_FAILED ->
          LOG.error(
              "{} {} attempt {} [{}]: {}",
              label,
              e.id(),
              e.attempt(),
              e.tokenFingerprint(),
              e.message(),
              e.error());
    }
  }
}
