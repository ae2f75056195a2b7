package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
    // claim: INSERT .. ON DUPLICATE KEY UPDATE .. RETURNING (MariaDB 10.5 and later); complete.
    // Replay: the claim alone, which returns the row. (The claim procedure serves single-commit
    // mode only: see MySqlFamilySql.)
    return new int[] {2, 1};
  }

  @Test
  void aReplayOfARowAnotherTransactionHoldsIsAnsweredWithoutWaitingForIt() throws Exception {
    JdbcIdempotencyStore store =
        closedAfterTest(JdbcIdempotencyStore.builder(dataSource()).tableName(TABLE).build());
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    ToolCall call = call("held-row", Map.of("order_id", "ord_1"));
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-1");
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try (Connection holder = dataSource().getConnection()) {
      holder.setAutoCommit(false);
      try (PreparedStatement lock =
          holder.prepareStatement(
              "SELECT 1 FROM " + TABLE + " WHERE " + ClaimRows.KEY + " FOR UPDATE")) {
        ClaimRows.bindKey(lock, 1, call.id());
        lock.executeQuery().close(); // held until the rollback below
      }
      // the claim statement would wait for this lock (50 s by default) if it waited at all
      Future<GateResult<String>> replay =
          caller.submit(() -> gate.execute(call, ResultMapper.utf8(), ctx -> "refund-2"));
      assertThat(replay.get(20, TimeUnit.SECONDS))
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("refund-1"));
      holder.rollback();
    } finally {
      caller.shutdownNow();
      gate.close();
    }
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
