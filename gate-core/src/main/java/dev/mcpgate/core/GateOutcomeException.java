package dev.mcpgate.core;

/**
 * A refused or failed call, thrown by {@link GateResult#orThrow()} for callers who prefer
 * exceptions to the result's cases. It carries the result, so nothing the gate knew is lost.
 */
public final class GateOutcomeException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  private final transient GateResult<?> result;

  /**
   * @param message the result's message
   * @param cause the failure underneath, or null
   * @param result the refused or failed result
   */
  GateOutcomeException(String message, Throwable cause, GateResult<?> result) {
    super(message, cause);
    this.result = result;
  }

  /**
   * @return the refused or failed result, with its reason, effect and retry advice
   */
  public GateResult<?> result() {
    return result;
  }
}
