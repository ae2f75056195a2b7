package dev.mcpgate.core;

/**
 * The idempotency key (or the tenant or tool name that scopes it) is missing or malformed. Nothing
 * was claimed and nothing ran.
 */
public final class InvalidIdempotencyKeyException extends IdempotencyException {
  private static final long serialVersionUID = 1L;
  private final boolean missing;

  /**
   * @param message the reason, naming the offending value
   * @param missing true when no key was given at all (as opposed to a malformed one)
   */
  public InvalidIdempotencyKeyException(String message, boolean missing) {
    super(message);
    this.missing = missing;
  }

  /**
   * @return true when no key was given at all; false when a key was given but is malformed
   */
  public boolean isMissing() {
    return missing;
  }
}
