package dev.mcpgate.benchmarks.throughput;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Small JDBC helpers for the contenders. */
final class Sql {
  private Sql() {}

  static void execute(DataSource dataSource, String... statements) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      for (String statement : statements) {
        st.execute(statement);
      }
    }
  }

  /** The business write of a gated or ungated tool: one row keyed by the call's key. */
  static void insertBusinessRow(Connection c, String key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO bench_business (k, note) VALUES (?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, "session stopped");
      ps.executeUpdate();
    }
  }

  static void createBusinessTable(DataSource dataSource) throws SQLException {
    execute(
        dataSource,
        "DROP TABLE IF EXISTS bench_business",
        "CREATE TABLE bench_business (k VARCHAR(255) PRIMARY KEY, note VARCHAR(255))");
  }

  static void expect(boolean condition, String what, String key) {
    if (!condition) {
      throw new IllegalStateException(what + ": " + key);
    }
  }
}
