package dev.mcpgate.core;

/**
 * The idempotency store could not be reached or could not write the claim. The gate fails
 * closed: the action did <em>not</em> run, and the caller may safely retry later.
 */
public final class StoreUnavailableException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what the store was doing when it failed
   * @param cause the store's own exception
   */
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
