package dev.mcpgate.jdbc;

import dev.mcpgate.core.StoreUnavailableException;
import java.sql.SQLException;

/**
 * Turns a driver's {@link SQLException} into the gate's {@link StoreUnavailableException}, saying
 * what failed, and for a missing table, which table and the DDL that creates it.
 */
final class SqlFailures {
  private final JdbcDialect dialect;
  private final String table;

  SqlFailures(JdbcDialect dialect, String table) {
    this.dialect = dialect;
    this.table = table;
  }

  StoreUnavailableException of(String what, SQLException e) {
    if (isMissingTable(e)) {
      return new StoreUnavailableException(
          "the claims table "
              + table
              + " does not exist ("
              + e.getMessage()
              + "); create it with:\n"
              + dialect.ddl(table)
              + "\nor build the store with createSchemaIfMissing(true)",
          e);
    }
    return new StoreUnavailableException(
        "could not " + what + " in " + dialect + " table " + table + detail(e), e);
  }

  /**
   * @return the driver's message and SQL state, as a failure's message ends
   */
  static String detail(SQLException e) {
    return ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")";
  }

  /** PostgreSQL 42P01, MySQL/MariaDB 42S02 (1146), H2 42S04/42102. */
  static boolean isMissingTable(SQLException e) {
    String state = e.getSQLState();
    return "42P01".equals(state)
        || "42S02".equals(state)
        || "42S04".equals(state)
        || e.getErrorCode() == 1146
        || e.getErrorCode() == 42102;
  }
}
