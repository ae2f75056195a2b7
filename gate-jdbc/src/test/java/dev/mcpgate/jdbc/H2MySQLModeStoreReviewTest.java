package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The JDBC store contract on an embedded H2 database in PostgreSQL compatibility mode, as Spring
 * applications often run their tests: the store creates its table there ({@code BLOB} is no type in
 * that mode) and keeps every rule of the contract.
 */
class H2MySQLModeStoreReviewTest extends JdbcStoreContract {

  private static final TestDatabases.Target TARGET =
      new TestDatabases.Target(
          "jdbc:h2:mem:mcpgate_mysql_mode;MODE=MySQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1",
          "sa",
          "",
          "embedded H2, MySQL mode");

  @Override
  public TestDatabases.Target target() {
    return TARGET;
  }

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(TARGET, "h2-mysql-mode", 24);
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    return new int[] {3, 1};
  }
}
