package dev.mcpgate.core;

/**
 * The tool arguments cannot be hashed in canonical form (NaN or infinity, a type that has no JSON
 * form, nesting deeper than the limit). The message names the path of the offending value, for
 * example {@code $.items[2].price}. Nothing was claimed and nothing ran.
 */
public final class InvalidArgumentsException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message the reason, naming the path of the offending value
   */
  public InvalidArgumentsException(String message) {
    super(message);
  }
}
