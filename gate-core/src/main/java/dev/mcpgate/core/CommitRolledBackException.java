package dev.mcpgate.core;

/**
 * The commit of a transactional attempt failed, and reading its claim back showed that it rolled
 * back: none of the action's writes and not its result took effect, and the claim was released. A
 * retry with the same key runs the action again, safely.
 */
public final class CommitRolledBackException extends StoreUnavailableException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed, and what the read-back showed
   * @param cause the commit's own failure
   */
  public CommitRolledBackException(String message, Throwable cause) {
    super(message, cause);
  }
}
