package dev.mcpgate.core;

/**
 * A transactional attempt found at completion time that its lease had been taken over by another
 * attempt. Its transaction was rolled back, so none of its writes happened; the other attempt owns
 * the key now.
 */
public final class LeaseLostException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message which claim was lost
   */
  public LeaseLostException(String message) {
    super(message);
  }
}
