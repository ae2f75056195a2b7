package dev.mcpgate.core;

import java.time.Duration;
import java.time.Instant;

/**
 * What {@link IdempotencyGate#execute} did with one call, as a value: the action was executed in
 * this call, a stored result was replayed, or the call was refused.
 *
 * @param <T> the action's result type
 */
public sealed interface GateResult<T> {

  /**
   * @return the claim's identity
   */
  ClaimId id();

  /** What happened to an executed attempt's result. */
  enum Completion {
    /** The result is stored and will be replayed. */
    STORED,
    /** The result was a failure and the claim was released, per policy: a retry runs again. */
    RELEASED,
    /**
     * Another attempt had taken over the lease: this result was not stored (the other attempt's
     * will be). The action may have run twice; the downstream key is how to make that harmless.
     */
    LEASE_LOST,
    /**
     * The action succeeded but storing its result failed (the store went away). The claim was not
     * freed; listeners were told ({@link GateEvent.Type#STORE_FAILED}).
     */
    STORE_FAILED
  }

  /**
   * The action ran in this call.
   *
   * @param id the claim
   * @param value the action's result
   * @param claim the claim it ran under
   * @param completion what happened to the result
   */
  record Executed<T>(ClaimId id, T value, ClaimOutcome.Acquired claim, Completion completion)
      implements GateResult<T> {}

  /**
   * The call had completed before: the stored result, and nothing ran.
   *
   * @param id the claim
   * @param value the stored result, read back through the result mapper
   * @param failure true when the stored result is a failure stored per policy
   * @param attempt the attempt that produced it (1, or more after takeovers)
   * @param firstExecutedAt when the attempt that produced it claimed the key
   * @param completedAt when its result was stored
   */
  record Replayed<T>(
      ClaimId id,
      T value,
      boolean failure,
      int attempt,
      Instant firstExecutedAt,
      Instant completedAt)
      implements GateResult<T> {}

  /**
   * The call was refused and nothing ran.
   *
   * @param id the claim
   * @param reason why
   * @param retryAfter when a retry may succeed; zero when a retry with this key never will
   * @param message a sentence for Java callers and operators
   */
  record Refused<T>(ClaimId id, RefusalReason reason, Duration retryAfter, String message)
      implements GateResult<T> {

    /**
     * @param refused a claim's refusal
     * @return the same refusal as the result of a call
     */
    public static <T> Refused<T> of(ClaimOutcome.Refused refused) {
      return new Refused<>(refused.id(), refused.reason(), refused.retryAfter(), refused.message());
    }
  }
}
