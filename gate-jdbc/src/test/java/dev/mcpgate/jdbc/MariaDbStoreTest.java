package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** The JDBC store contract on a real MariaDB server. */
class MariaDbStoreTest extends JdbcStoreContract {

  @Override
  public TestDatabases.Target target() {
    return TestDatabases.mariadb();
  }

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(TestDatabases.mariadb(), "mariadb", 24);
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    // claim: a consistent SELECT, then the INSERT; complete. Replay: the SELECT alone. (The claim
    // procedure, one round trip, serves single-commit mode only: see MySqlFamilySql.)
    return new int[] {3, 1};
  }
}
