package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.StoreUnavailableException;
import java.time.Duration;

/**
 * A failure the engine decided, on its way out of the part that decided it: the engine turns it
 * into a {@link GateResult.Failed} at its edge, where it knows the call's hash and wait, and it
 * never leaves this package. It has no stack trace: the reason and the cause say what happened.
 */
final class CallFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final FailureReason reason;
  private final GateResult.Effect effect;
  private final boolean retrySafe;
  private final int attempt;
  private boolean untold;

  /**
   * @param claim the attempt that ran, or null when none did
   */
  CallFailure(
      FailureReason reason,
      GateResult.Effect effect,
      boolean retrySafe,
      ClaimOutcome.Acquired claim,
      String message,
      Throwable cause) {
    super(message, cause, true, false);
    this.reason = reason;
    this.effect = effect;
    this.retrySafe = retrySafe;
    this.attempt = claim == null ? 0 : claim.attempt();
    this.untold = claim == null; // no action started: no decision was told for the call
  }

  /** Nothing ran: the store could not be reached, or could not begin a unit of work. */
  static CallFailure storeUnavailable(
      ClaimOutcome.Acquired claim, String message, Throwable cause) {
    return new CallFailure(
        FailureReason.STORE_UNAVAILABLE, GateResult.Effect.NO, true, claim, message, cause);
  }

  /** A call the store could not claim: nothing ran. */
  static CallFailure unclaimed(String message, Throwable cause) {
    return storeUnavailable(null, message, cause);
  }

  /** Nothing ran: the gate was closed (or began closing) before the action could start. */
  static CallFailure gateClosed(String message, Throwable cause) {
    return new CallFailure(
        FailureReason.GATE_CLOSED, GateResult.Effect.NO, true, null, message, cause);
  }

  /**
   * @return whether no decision about the call (acquired, replayed, refused, rejected) was told to
   *     the listeners: a failure that carries no attempt, since an acquired claim is told only as
   *     its action starts and a replay once its result is read; the engine tells it as {@code
   *     FAILED}
   */
  boolean isUntold() {
    return untold;
  }

  /**
   * @return this failure, marked as one whose call was told already (a rejection)
   */
  CallFailure told() {
    untold = false;
    return this;
  }

  /**
   * A claim the store could not write: nothing ran. Another {@link IdempotencyException} (bad input
   * the store refused) is not the store's failure: it is thrown on as it is.
   */
  static CallFailure notClaimed(ClaimId id, RuntimeException e) {
    if (e instanceof IdempotencyException && !(e instanceof StoreUnavailableException)) {
      throw e;
    }
    return unclaimed(
        "could not claim "
            + id
            + "; the action did not run; safe to retry"
            + (e instanceof StoreUnavailableException ? ": " + e.getMessage() : ""),
        e);
  }

  /**
   * @return the result the caller gets
   */
  <T> GateResult.Failed<T> result(ClaimId id, String argsHash, String keySource, Duration waited) {
    Throwable cause = getCause();
    if (cause == null && getSuppressed().length > 0) {
      cause = getSuppressed()[0]; // what failed while settling, where nothing else did
    }
    return new GateResult.Failed<>(
        id,
        reason,
        effect,
        retrySafe,
        getMessage(),
        cause,
        attempt,
        argsHash,
        keySource,
        this.waited != null ? this.waited : waited);
  }

  private Duration waited;

  /**
   * @param waited how long the call waited on another attempt before this failure
   * @return this failure, saying so
   */
  CallFailure afterWaiting(Duration waited) {
    this.waited = waited;
    return this;
  }

  /**
   * @return the exception the step-by-step API throws for this failure, whose callers get no
   *     result: the store's own {@link IdempotencyException} where there is one
   */
  RuntimeException toException() {
    if (reason == FailureReason.STORE_UNAVAILABLE) {
      return new StoreUnavailableException(getMessage(), getCause());
    }
    if (getCause() instanceof RuntimeException e) {
      return e; // the store's, the codec's, the hasher's own, as the step-by-step API threw them
    }
    return new IdempotencyException(getMessage(), getCause());
  }
}
