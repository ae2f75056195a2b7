package dev.mcpgate.core;

/**
 * The idempotency store could not be reached or could not write what it had to, and nothing took
 * effect: the claim could not be written (the action did not run), or a transactional attempt's
 * unit of work could not begin or was rolled back ({@link CommitRolledBackException}). The caller
 * may safely retry later. When whether something took effect is not known, the gate says so with
 * {@link OutcomeUnknownException} instead.
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
