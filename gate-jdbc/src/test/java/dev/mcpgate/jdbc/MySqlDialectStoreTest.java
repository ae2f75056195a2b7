package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store contract on MySQL's code path, as a MySQL user runs it: the {@link
 * JdbcDialect#MYSQL} dialect through Connector/J. There is no MySQL server here, so the statements
 * run on the MariaDB server: this proves the MySQL path's logic and driver handling, not MySQL's
 * acceptance of each statement.
 */
class MySqlDialectStoreTest extends JdbcStoreContract {

  @Override
  public TestDatabases.Target target() {
    return TestDatabases.mariadbThroughConnectorJ();
  }

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(target(), "connectorj", 24);
  }

  @Override
  JdbcIdempotencyStore.Builder storeBuilder(DataSource data) {
    return JdbcIdempotencyStore.builder(data).dialect(JdbcDialect.MYSQL);
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
  void theStoreRunsTheMysqlDialect() {
    assertThat(jdbcStore().dialect()).isEqualTo(JdbcDialect.MYSQL);
  }
}
