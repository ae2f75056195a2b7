package dev.mcpgate.core;

/**
 * The commit of a unit of work that held the action's writes and its result failed, and whether it
 * took effect could not be found out: the action ran, and its writes may or may not have been
 * committed. The key is not freed. A retry with the same key finds out safely: it replays the
 * stored result if the commit took effect, and runs the action if it did not (in single-commit mode
 * at once; in the transactional mode once the attempt's lease has run out).
 */
public final class CommitOutcomeUnknownException extends OutcomeUnknownException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed, and what could not be found out
   * @param cause the commit's own failure
   */
  public CommitOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
