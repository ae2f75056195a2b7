package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RejectionReason;
import dev.mcpgate.core.spi.ClaimRecord;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells a gate's listeners of each decision; a failing listener is logged, never propagated. */
final class Events {
  /**
   * The one logger of the engine, named after the gate (as it always was), so that a log setting
   * for {@code dev.mcpgate.core.IdempotencyGate} covers every class of the engine, and the
   * decisions {@code Slf4jGateListener} logs with {@code getLogger(IdempotencyGate.class)}. A
   * string, because the engine does not depend on the facade (EngineBoundariesTest);
   * EngineLoggerTest checks it is the facade's name.
   */
  static final String LOGGER = "dev.mcpgate.core.IdempotencyGate";

  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

  private final List<GateListener> listeners;
  private final InstantSource clock;

  Events(List<GateListener> listeners, InstantSource clock) {
    this.listeners = List.copyOf(listeners);
    this.clock = clock;
  }

  /** An event of the attempt that holds {@code claim}. */
  void emit(GateEvent.Type type, ClaimOutcome.Acquired claim, String message, Throwable error) {
    attempt(type, claim.id(), claim.attempt(), claim.token(), message, error, null, Duration.ZERO);
  }

  /** An event of the attempt that wrote {@code row}. */
  void emit(GateEvent.Type type, ClaimRecord row, String message, Throwable error) {
    attempt(type, row.id(), row.attempt(), row.token(), message, error, null, Duration.ZERO);
  }

  /**
   * The decision that a call's action runs now: told just before it starts (or, for the
   * step-by-step API, as the claim is handed to the caller), never for a claim released before.
   */
  void acquired(ClaimOutcome.Acquired claim, String keySource, Duration waited) {
    attempt(
        GateEvent.Type.ACQUIRED,
        claim.id(),
        claim.attempt(),
        claim.token(),
        claim.isTakeover()
            ? "took over an expired lease; the action runs again (attempt " + claim.attempt() + ")"
            : "claimed; the action runs",
        null,
        keySource,
        waited);
  }

  /**
   * The decision that a call gets a stored result: told once the result was read back for the
   * caller, never for one the codec or the result mapper could not read (a failure, told as such).
   * It names the attempt whose result it is; no token fingerprint, as the replay is not that
   * attempt's own event.
   */
  void replayed(ClaimOutcome.Replayed replay, String keySource, Duration waited) {
    if (!listeners.isEmpty()) {
      publish(
          new GateEvent(
              GateEvent.Type.REPLAYED,
              replay.id(),
              replay.attempt(),
              null,
              null,
              replay.settled()
                  ? "replayed the result stored under an operator's settlement"
                  : "replayed the stored result",
              null,
              clock.instant(),
              keySource,
              waited,
              replay.id().tool(),
              null,
              null));
    }
  }

  /** An event about one attempt, told by its token's fingerprint. */
  private void attempt(
      GateEvent.Type type,
      ClaimId id,
      int attempt,
      LeaseToken token,
      String message,
      Throwable error,
      String keySource,
      Duration waited) {
    if (!listeners.isEmpty()) {
      publish(
          new GateEvent(
              type,
              id,
              attempt,
              token.fingerprint(),
              null,
              message,
              error,
              clock.instant(),
              keySource,
              waited,
              id.tool(),
              null,
              null));
    }
  }

  void refused(ClaimOutcome.Refused refused, String keySource, Duration waited) {
    if (!listeners.isEmpty()) {
      publish(
          new GateEvent(
              GateEvent.Type.REFUSED,
              refused.id(),
              0,
              null,
              refused.reason(),
              refused.message(),
              null,
              clock.instant(),
              keySource,
              waited,
              refused.id().tool(),
              null,
              null));
    }
  }

  /** A call the gate failed before claiming anything (see {@link GateEvent.Type#FAILED}). */
  void failed(GateResult.Failed<?> failed) {
    if (!listeners.isEmpty()) {
      publish(
          new GateEvent(
              GateEvent.Type.FAILED,
              failed.id(),
              0,
              null,
              null,
              failed.message(),
              failed.cause(),
              clock.instant(),
              failed.keySource(),
              failed.waited(),
              failed.id().tool(),
              null,
              failed.reason()));
    }
  }

  /** A call refused before any claim; the message names no tenant, key or argument value. */
  void rejected(String tool, RejectionReason rejection, String message, String keySource) {
    if (!listeners.isEmpty()) {
      publish(GateEvent.rejected(tool, rejection, message, clock.instant(), keySource));
    }
  }

  private void publish(GateEvent event) {
    for (GateListener listener : listeners) {
      try {
        listener.onEvent(event);
      } catch (VirtualMachineError e) {
        throw e; // out of memory or stack: nothing here can go on
      } catch (RuntimeException | Error e) {
        // a listener's bug (a missing class or method too) does not change the call's outcome
        LOG.warn(
            "gate listener {} failed on {} {}",
            listener,
            event.type(),
            event.id() == null ? "tool " + event.tool() : event.id(),
            e);
      }
    }
  }
}
