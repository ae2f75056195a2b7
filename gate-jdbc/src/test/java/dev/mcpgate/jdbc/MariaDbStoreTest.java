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
    // claim: one CALL of the claim procedure (a consistent read, then the INSERT); complete.
    // Replay: the CALL alone, which inserts nothing
    return new int[] {2, 1};
  }
}
