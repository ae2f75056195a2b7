package dev.mcpgate.core;

/**
 * Wraps a checked exception thrown by a gated action (unchecked exceptions and errors propagate
 * unchanged). By the time it is thrown the claim was released, or fenced as unknown, per policy.
 */
public final class ActionFailedException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message which claim's action failed
   * @param cause the action's checked exception
   */
  public ActionFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
