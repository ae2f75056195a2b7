package dev.mcpgate.core;

/**
 * Why a claim was refused. One vocabulary from the claim to the caller: a claim is {@linkplain
 * ClaimOutcome.Acquired acquired}, {@linkplain ClaimOutcome.Replayed replayed} or {@linkplain
 * ClaimOutcome.Refused refused} for one of these reasons, and the MCP adapter maps each to one
 * error type. In every case nothing ran in this call.
 */
public enum RefusalReason {
  /** The key was used before with different arguments. A retry with this key never succeeds. */
  CONFLICT,
  /**
   * Another attempt holds the key and keeps renewing its lease: it is running. Retry after the
   * given time to get its result.
   */
  IN_PROGRESS,
  /**
   * Another attempt holds the key but stopped renewing its lease (its process likely crashed, or
   * cannot reach the store): once the lease runs out, after the given time, a retry takes the key
   * over and runs the action again, with the same downstream key.
   */
  HOLDER_UNRESPONSIVE,
  /**
   * An earlier attempt's outcome is unknown; the key is fenced until a reconciler or an operator
   * settles it, or its unknown fence runs out ({@link GatePolicy#unknownFence()}).
   */
  OUTCOME_UNKNOWN,
  /** The call ran before, but its result was too large to store; it will not run again. */
  RESULT_NOT_STORED
}
