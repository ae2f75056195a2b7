package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

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

  @Test
  void tablesWhoseNamesDifferOnlyInCaseKeepTheirClaimsApart() throws Exception {
    try (Connection c = dataSource().getConnection()) {
      Assumptions.assumeTrue(
          "0".equals(SqlDialect.queryOne(c, "SELECT @@lower_case_table_names")),
          "table names are case-sensitive on this server");
    }
    // two tables on a server whose table names are case-sensitive; routine names never are
    String lower = "mcpgate_case_claims";
    String upper = "MCPGATE_CASE_CLAIMS";
    List<String> tables = List.of(lower, upper);
    dropTablesAndProcedures(tables);
    try {
      assertTheSecondTableKeepsItsClaim(lower, upper, "case-table");
    } finally {
      dropTablesAndProcedures(tables);
    }
  }
}
