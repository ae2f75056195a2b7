package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** {@link RenewalFaultSuite} on a real MariaDB server. */
class MariaDbRenewalFaultTest extends RenewalFaultSuite {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.mariadb();
  }

  @Override
  void killSession(Connection admin, int clientPort) throws SQLException {
    long id;
    try (PreparedStatement ps =
        admin.prepareStatement(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE HOST = CONCAT('127.0.0.1:', ?)")) {
      ps.setInt(1, clientPort);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("a session from port " + clientPort).isTrue();
        id = rs.getLong(1);
      }
    }
    try (Statement s = admin.createStatement()) {
      s.execute("KILL " + id);
    }
  }
}
