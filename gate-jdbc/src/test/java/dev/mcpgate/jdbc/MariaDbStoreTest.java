package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
      JdbcIdempotencyStore first =
          closedAfterTest(
              JdbcIdempotencyStore.builder(dataSource())
                  .tableName(lower)
                  .createSchemaIfMissing(true)
                  .build());
      first.verify();
      JdbcIdempotencyStore second =
          closedAfterTest(
              JdbcIdempotencyStore.builder(dataSource())
                  .tableName(upper)
                  .createSchemaIfMissing(true)
                  .build());
      second.verify();
      ClaimRequest request =
          new ClaimRequest(
              call("case-table", Map.of()).id(),
              "v1:a",
              LeaseToken.random(),
              Duration.ofMinutes(5),
              Duration.ofMinutes(5));

      // single-commit mode with a zero wait: the claim that goes through the procedure
      assertThat(claimedInSingleCommit(second, request)).isInstanceOf(ClaimAttempt.Acquired.class);

      assertThat(second.find(request.id())).as("the claim is in table %s", upper).isPresent();
      assertThat(first.find(request.id())).as("nothing is in table %s", lower).isEmpty();
    } finally {
      dropTablesAndProcedures(tables);
    }
  }
}
