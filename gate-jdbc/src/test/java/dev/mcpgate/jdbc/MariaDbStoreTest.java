package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** The JDBC store contract on a real MariaDB server. */
class MariaDbStoreTest extends JdbcStoreContract {

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(TestDatabases.mariadb(), "mariadb", 24);
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    // claim: INSERT ... ON DUPLICATE KEY UPDATE, read back; complete. Replay: the claim's two.
    return new int[] {3, 2};
  }
}
