package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Connection faults on MariaDB: KILL CONNECTION on every busy connection to the test database
 * (other than the killer's own). Only the fault pool is busy while this test runs.
 */
class MariaDbConnectionFaultTest extends ConnectionFaultContract {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.mariadb();
  }

  @Override
  void markConnections(HikariConfig config) {
    // MariaDB's process list has no application name; busy connections are found by state
  }

  @Override
  int killBusyConnections(Connection admin) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (Statement st = admin.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT ID FROM information_schema.PROCESSLIST"
                    + " WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND COMMAND = 'Query'")) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    int killed = 0;
    for (long id : ids) {
      try (Statement st = admin.createStatement()) {
        st.execute("KILL CONNECTION " + id);
        killed++;
      } catch (SQLException gone) {
        // it finished before we got to it
      }
    }
    return killed;
  }
}
