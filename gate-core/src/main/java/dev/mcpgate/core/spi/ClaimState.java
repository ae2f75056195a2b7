package dev.mcpgate.core.spi;

/** The state of a stored claim row. */
public enum ClaimState {
  /** An attempt holds the lease and is running the action. */
  IN_PROGRESS,
  /** The action finished; its result is stored and replayed until the row expires. */
  COMPLETED,
  /**
   * The action's outcome is unknown (a downstream timeout). The key stays fenced: retries are
   * refused until the lease expires, then one may take over.
   */
  UNKNOWN
}
