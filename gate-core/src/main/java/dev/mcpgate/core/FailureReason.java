package dev.mcpgate.core;

/**
 * Why a call failed, as a {@link GateResult.Failed} says it. Each reason fixes what the gate knows
 * of the call's effect ({@link GateResult.Failed#effect()}) and whether sending the same call with
 * the same key again is safe ({@link GateResult.Failed#retrySafe()}); the MCP adapter maps each to
 * one error type a model can act on.
 */
public enum FailureReason {
  /** The store could not be reached before the action ran: nothing took effect; safe to retry. */
  STORE_UNAVAILABLE,
  /**
   * The action ran in a unit of work, and storing its result or committing failed; the unit of work
   * was rolled back and the claim released (read back after the transaction ended): nothing took
   * effect; safe to retry.
   */
  ROLLED_BACK,
  /**
   * Another attempt took the key over before this one finished: this attempt's unit of work was
   * rolled back, or its action never started; the other attempt may take effect. A retry with the
   * same key gets that attempt's result.
   */
  LEASE_LOST,
  /**
   * The action ran, and the commit of its unit of work failed without the store being able to say
   * whether it committed: the effect is unknown. The key stays claimed until its lease runs out; a
   * retry with the same key then finds out, and never runs the action twice.
   */
  COMMIT_UNKNOWN,
  /**
   * The action failed in a way the policy reads as "may have taken effect" (or it was interrupted),
   * and the key is fenced as unknown until a reconciler or an operator settles it, or the fence
   * runs out. A retry is safe only where the policy has a reconciler.
   */
  OUTCOME_UNKNOWN,
  /**
   * The action threw ({@link GateResult.Failed#cause()}), and the claim was released (or rolled
   * back with its single-commit transaction): a retry runs the action again. Its effect is {@code
   * NO} when the policy reads the exception as "did not take effect", {@code UNKNOWN} otherwise
   * (the key could then not be fenced, and stays claimed until its lease runs out).
   */
  ACTION_FAILED,
  /**
   * The action ran and took effect, but its result was larger than the policy allows: the key is
   * fenced as "ran, result not stored" and never runs again.
   */
  RESULT_TOO_LARGE,
  /** The arguments cannot be hashed (too deep, too large, or not JSON): nothing ran. */
  ARGUMENTS_INVALID,
  /**
   * The call ran before and its result is stored, but the result mapper or the codec cannot read it
   * back (changed since, or the codec lacks the key it was written with): nothing ran now, and a
   * retry with the same key fails the same way until the operator fixes the mapper or codec.
   */
  RESULT_UNREADABLE,
  /**
   * The gate was closed (its application is stopping) before the action could start: nothing ran,
   * and a claim taken on the way was released. A retry with the same key, to a gate that is open,
   * is safe.
   */
  GATE_CLOSED
}
