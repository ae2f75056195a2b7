package dev.mcpgate.jdbc;

import dev.mcpgate.core.StoreUnavailableException;
import java.util.List;

/**
 * The claims table cannot be used as it is: it does not exist, or it is older than this version of
 * the store (a column, a column's width or the purge index is missing). Its message, and {@link
 * #statements()}, give the SQL that makes it usable: the DDL that creates the table, or the
 * statements that bring an old one up to date. Thrown by {@link JdbcIdempotencyStore#verify()} and
 * by the first use of a store whose table is missing.
 */
public final class ClaimsTableException extends StoreUnavailableException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the table. */
  public enum Problem {
    /** The table does not exist. */
    MISSING,
    /** The table exists, but an older version of the store created it. */
    OUT_OF_DATE
  }

  private final String table;
  private final Problem problem;
  private final String statements;
  private final List<String> differences;

  ClaimsTableException(
      String table, Problem problem, List<String> differences, String statements, String message) {
    super(message, null);
    this.table = table;
    this.problem = problem;
    this.differences = List.copyOf(differences);
    this.statements = statements;
  }

  /**
   * @return the table's name, as the store was built with it
   */
  public String table() {
    return table;
  }

  /**
   * @return whether the table is missing or out of date
   */
  public Problem problem() {
    return problem;
  }

  /**
   * @return what differs from this version's table, a sentence each ("it has no column
   *     result_kind"); empty when the table is missing
   */
  public List<String> differences() {
    return differences;
  }

  /**
   * @return the SQL to run (statements ended by {@code ;}): the DDL that creates the table, or the
   *     statements that bring it up to date
   */
  public String statements() {
    return statements;
  }
}
