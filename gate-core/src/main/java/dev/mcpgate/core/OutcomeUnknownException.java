package dev.mcpgate.core;

/**
 * Thrown by an action (or chosen by {@link GatePolicy#outcomeUnknownWhen()}) when it cannot tell
 * whether its effect happened, for example after a timeout on a downstream call. The gate then
 * keeps the key fenced in the {@code UNKNOWN} state instead of releasing it: retries are refused
 * with "outcome unknown" until the lease expires, after which a retry takes over (and should use
 * the {@linkplain ClaimContext#downstreamKey() downstream key} to ask the downstream system).
 */
public class OutcomeUnknownException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /** @param message what is unknown */
  public OutcomeUnknownException(String message) {
    super(message);
  }

  /**
   * @param message what is unknown
   * @param cause the failure that made it unknown
   */
  public OutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
