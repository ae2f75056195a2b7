package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** The JDBC store contract on an embedded H2 database. */
class H2StoreTest extends JdbcStoreContract {

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(TestDatabases.h2(), "h2", 24);
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    // claim: read, insert, read back; complete: update. Replay: one read.
    return new int[] {4, 1};
  }
}
