package dev.mcpgate.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;

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
      // H2, while another session creates it: not found, "candidates are" its own name (42S03)
      if (SqlFailures.isMissingTable(e) || "42S03".equals(e.getSQLState())) {
        return false;
      }
      throw e;
    }
  }

  /** A procedure created by a racing setup: "PROCEDURE .. already exists". */
  private static final int MYSQL_PROCEDURE_EXISTS = 1304;

  /**
   * @return true when both of the table's procedures exist (MariaDB/MySQL)
   */
  static boolean proceduresExist(Connection c, String table) throws SQLException {
    String claim = TableName.claimProcedureName(table);
    String complete = TableName.completeProcedureName(table);
    int dot = claim.indexOf('.');
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'PROCEDURE'"
                + " AND ROUTINE_SCHEMA = COALESCE(?, DATABASE()) AND ROUTINE_NAME IN (?, ?)")) {
      ps.setString(1, dot < 0 ? null : claim.substring(0, dot));
      ps.setString(2, claim.substring(dot + 1));
      ps.setString(3, complete.substring(complete.indexOf('.') + 1));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getInt(1) == 2;
      }
    }
  }

  /**
   * Creates procedures (each one statement, its comment lines left out); one that a racing setup
   * created a moment ago is fine.
   */
  static void createProcedures(Connection c, List<String> procedures) throws SQLException {
    try (Statement st = c.createStatement()) {
      for (String ddl : procedures) {
        String body =
            ddl.lines().filter(l -> !l.startsWith("--")).collect(Collectors.joining("\n")).strip();
        try {
          st.execute(body);
        } catch (SQLException e) {
          if (e.getErrorCode() != MYSQL_PROCEDURE_EXISTS) {
            throw e;
          }
        }
      }
    }
  }

  /** Runs each statement of the dialect's DDL; an index that exists already is fine. */
  static void create(Connection c, JdbcDialect dialect, String table) throws SQLException {
    run(c, dialect.ddl(table));
  }

  /** How many times a DDL text is run again after losing a race with another session's. */
  private static final int CREATION_RACES = 5;

  /**
   * Runs each statement of a DDL text; an index that exists already is fine. Every statement is a
   * {@code CREATE .. IF NOT EXISTS}, which PostgreSQL does not make atomic: a session that creates
   * the same table or index at the same moment as another fails with a unique violation in the
   * catalog (23505), or "already exists" (42P07, 42710), instead of skipping it. Then the whole
   * text is run again (after a rollback, in a transaction), and finds what the other made.
   */
  static void run(Connection c, String ddl) throws SQLException {
    for (int race = 0; ; race++) {
      try {
        runOnce(c, ddl);
        return;
      } catch (SQLException e) {
        if (race >= CREATION_RACES || !isCreationRace(e)) {
          throw e;
        }
        if (!c.getAutoCommit()) {
          c.rollback();
        }
      }
    }
  }

  /** H2's general error, which wraps what went wrong inside it (a race of two DDL sessions). */
  private static final int H2_GENERAL_ERROR = 50000;

  /**
   * @return true when a {@code CREATE .. IF NOT EXISTS} failed only because another session created
   *     the same object at the same moment: PostgreSQL's unique violation in the catalog or
   *     "already exists"; H2's general error "object already exists" (its index creation races)
   */
  private static boolean isCreationRace(SQLException e) {
    String state = e.getSQLState();
    return "23505".equals(state)
        || "42P07".equals(state)
        || "42710".equals(state)
        || e.getErrorCode() == H2_GENERAL_ERROR
            && String.valueOf(e.getMessage()).contains("object already exists");
  }

  private static void runOnce(Connection c, String ddl) throws SQLException {
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
