package dev.mcpgate.core;

/**
 * An action that works inside a unit of work that it shares with its own completion (for JDBC: a
 * connection with a transaction open), so that its writes and the stored result commit together.
 *
 * @param <T> the result type
 * @param <R> the resource type (a {@code java.sql.Connection})
 */
@FunctionalInterface
public interface ScopedAction<T, R> {

  /**
   * @param resource the resource to write through; do not commit or close it
   * @param context the claim this attempt runs under
   * @return the result
   * @throws Exception any failure; the unit of work rolls back and the claim is released
   */
  T run(R resource, ClaimContext context) throws Exception;
}
