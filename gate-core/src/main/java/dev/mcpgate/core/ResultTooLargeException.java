package dev.mcpgate.core;

/**
 * The action ran, but its encoded result is larger than the policy's (or the store's) limit, so it
 * could not be stored for replay. The claim is <em>not</em> freed, because the effect happened: a
 * retry with the same key is refused, never run again.
 */
public final class ResultTooLargeException extends IdempotencyException {
  private static final long serialVersionUID = 1L;
  private final long size;
  private final long limit;

  /**
   * @param message the reason, naming the claim
   * @param size the encoded size in bytes
   * @param limit the limit in bytes
   */
  public ResultTooLargeException(String message, long size, long limit) {
    super(message);
    this.size = size;
    this.limit = limit;
  }

  /**
   * @return the encoded size of the refused result, in bytes
   */
  public long size() {
    return size;
  }

  /**
   * @return the limit that the result exceeded, in bytes
   */
  public long limit() {
    return limit;
  }
}
