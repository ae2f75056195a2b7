package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** The JDBC store contract on a real PostgreSQL server. */
class PostgresStoreTest extends JdbcStoreContract {

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(TestDatabases.postgres(), "postgres", 24);
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    // claim (one INSERT ... ON CONFLICT statement) and complete; a replay is the claim alone
    return new int[] {2, 1};
  }
}
