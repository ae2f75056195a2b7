package dev.mcpgate.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** The claims table's presence and creation, from the dialect's DDL. */
final class Schema {
  /** MariaDB before 10.5 and MySQL have no CREATE INDEX IF NOT EXISTS: "duplicate key name". */
  private static final int MYSQL_DUPLICATE_INDEX = 1061;

  private Schema() {}

  static boolean tableExists(Connection c, String table) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
      return true;
    } catch (SQLException e) {
      if (!c.getAutoCommit()) {
        c.rollback();
      }
      if (SqlFailures.isMissingTable(e)) {
        return false;
      }
      throw e;
    }
  }

  /** Runs each statement of the dialect's DDL; an index that exists already is fine. */
  static void create(Connection c, JdbcDialect dialect, String table) throws SQLException {
    run(c, dialect.ddl(table));
  }

  /** Runs each statement of a DDL text; an index that exists already is fine. */
  static void run(Connection c, String ddl) throws SQLException {
    try (Statement st = c.createStatement()) {
      for (String statement : ddl.split(";")) {
        String body =
            statement
                .lines()
                .filter(l -> !l.strip().startsWith("--"))
                .reduce("", (a, b) -> a + "\n" + b)
                .strip();
        if (!body.isEmpty()) {
          try {
            st.execute(body);
          } catch (SQLException e) {
            if (e.getErrorCode() != MYSQL_DUPLICATE_INDEX) {
              throw e;
            }
          }
        }
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }
}
