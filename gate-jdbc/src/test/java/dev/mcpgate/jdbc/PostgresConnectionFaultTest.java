package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Connection faults on PostgreSQL: pg_terminate_backend on the pool's busy backends. */
class PostgresConnectionFaultTest extends ConnectionFaultContract {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.postgres();
  }

  @Override
  void markConnections(HikariConfig config) {
    config.addDataSourceProperty("ApplicationName", APP);
  }

  @Override
  int killBusyConnections(Connection admin) throws SQLException {
    try (Statement st = admin.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE application_name = '"
                    + APP
                    + "' AND state <> 'idle'"
                    // only backends running a claim or a completion: killing the pool's connection
                    // setup
                    // as well starves the pool for tens of seconds and tests nothing more
                    + " AND query LIKE '%"
                    + JdbcStoreContract.TABLE
                    + "%'")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
