package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store contract through MySQL's driver (Connector/J) on the MariaDB server: the driver's
 * own error codes, SQL states, batches and procedure calls, with the dialect it detects.
 */
class ConnectorJStoreTest extends JdbcStoreContract {

  @Override
  public TestDatabases.Target target() {
    return TestDatabases.mariadbThroughConnectorJ();
  }

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(target(), "connectorj", 24);
  }

  /** The pool is of this class only: no later test holds its connections open. */
  @AfterAll
  static void closeThePool() {
    TestDatabases.closePools("connectorj");
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    return new int[] {3, 1};
  }

  @Test
  void connectorJReportsTheProductAsMysqlAndTheStoreStillFindsMariadb() throws Exception {
    try (Connection c = dataSource().getConnection()) {
      assertThat(c.getMetaData().getDriverName()).contains("MySQL Connector/J");
      assertThat(c.getMetaData().getDatabaseProductName()).isEqualTo("MySQL");
    }
    assertThat(jdbcStore().dialect()).isEqualTo(JdbcDialect.MARIADB);
  }
}
