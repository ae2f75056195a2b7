package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** {@link RenewalFaultSuite} on a real PostgreSQL server. */
class PostgresRenewalFaultTest extends RenewalFaultSuite {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.postgres();
  }

  @Override
  void killSession(Connection admin, int clientPort) throws SQLException {
    try (PreparedStatement ps =
        admin.prepareStatement(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ?")) {
      ps.setInt(1, clientPort);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("a session from port " + clientPort).isTrue();
      }
    }
  }
}
