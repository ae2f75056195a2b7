package dev.mcpgate.core.spi;

/** The state of a stored claim row. */
public enum ClaimState {
  /** An attempt holds the lease and is running the action. */
  IN_PROGRESS,
  /** The action finished; its result is stored and replayed until the row expires. */
  COMPLETED,
  /**
   * The action's outcome is unknown (a downstream timeout, an interrupted action). The key stays
   * fenced until the row expires (the policy's unknown fence) or someone who knows settles it with
   * its token; no lease running out frees it.
   */
  UNKNOWN
}
