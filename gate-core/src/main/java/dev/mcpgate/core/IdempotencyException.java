package dev.mcpgate.core;

/**
 * Root of every exception that MCP Gate throws. Normal outcomes of a claim (replay, conflict,
 * in-flight) are never thrown: they are values ({@link ClaimOutcome}, {@link GateResult}). An
 * {@code IdempotencyException} always means a failure: bad input, a store that cannot be reached, a
 * result that cannot be kept.
 */
public class IdempotencyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, naming the offending value
   */
  public IdempotencyException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong, naming the offending value
   * @param cause the underlying failure
   */
  public IdempotencyException(String message, Throwable cause) {
    super(message, cause);
  }
}
