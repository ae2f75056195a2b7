package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** The JDBC store contract on an embedded H2 database. */
class H2StoreTest extends JdbcStoreContract {

  @Override
  public TestDatabases.Target target() {
    return TestDatabases.h2();
  }

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(TestDatabases.h2(), "h2", 24);
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    // claim: a SELECT, then the INSERT; complete. Replay: the SELECT alone.
    return new int[] {3, 1};
  }
}
