package dev.mcpgate.benchmarks.throughput;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

  /** How many accounts the read-modify-write spreads its keys over. */
  static final int ACCOUNTS = 1000;

  /**
   * What a tool's transaction really is: lock an account's balance ({@code SELECT .. FOR UPDATE}),
   * write the new balance, and insert a ledger row keyed by the call's key. The caller commits.
   */
  static void transfer(Connection c, String key) throws SQLException {
    int account = Math.floorMod(key.hashCode(), ACCOUNTS);
    long balance;
    try (PreparedStatement ps =
        c.prepareStatement("SELECT balance FROM bench_accounts WHERE id = ? FOR UPDATE")) {
      ps.setInt(1, account);
      try (ResultSet rs = ps.executeQuery()) {
        expect(rs.next(), "no account", key);
        balance = rs.getLong(1);
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE bench_accounts SET balance = ? WHERE id = ?")) {
      ps.setLong(1, balance - 1);
      ps.setInt(2, account);
      ps.executeUpdate();
    }
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO bench_ledger (k, account, amount) VALUES (?, ?, ?)")) {
      ps.setString(1, key);
      ps.setInt(2, account);
      ps.setLong(3, 1);
      ps.executeUpdate();
    }
  }

  /** The accounts (each with a balance) and the ledger of {@link #transfer}. */
  static void createAccounts(DataSource dataSource) throws SQLException {
    execute(
        dataSource,
        "DROP TABLE IF EXISTS bench_ledger",
        "DROP TABLE IF EXISTS bench_accounts",
        "CREATE TABLE bench_accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)",
        "CREATE TABLE bench_ledger (k VARCHAR(255) PRIMARY KEY, account INT NOT NULL,"
            + " amount BIGINT NOT NULL)");
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO bench_accounts (id, balance) VALUES (?, ?)")) {
      for (int i = 0; i < ACCOUNTS; i++) {
        ps.setInt(1, i);
        ps.setLong(2, 1_000_000);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  static void expect(boolean condition, String what, String key) {
    if (!condition) {
      throw new IllegalStateException(what + ": " + key);
    }
  }
}
