package dev.mcpgate.core;

/**
 * The idempotency store could not be reached or could not write what it had to: what a store throws
 * (the SPI's signal), and what the step-by-step API throws. A call through {@link
 * IdempotencyGate#execute} gets it as a {@link GateResult.Failed} instead, whose reason says what
 * took effect.
 */
public class StoreUnavailableException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what the store was doing when it failed
   * @param cause the store's own exception
   */
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
