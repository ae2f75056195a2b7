package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code singleCommit(Connection)} on a connection with auto-commit off, where the caller has
 * already written in a transaction of its own. Joining it would commit the caller's earlier work
 * with the gate's one commit, or roll it back with a replay, a refusal or a failed claim, and leave
 * the connection in auto-commit mode behind the caller's back. The store refuses such a connection,
 * touching nothing of the caller's transaction.
 */
class SingleCommitCallersTransactionEdgeTest {
  private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private final String table = "edge_sc_claims_" + suffix;
  private final String side = "edge_sc_side_" + suffix;
  private HikariDataSource pool;

  private HikariDataSource pool(String backend) {
    pool =
        TestDatabases.pool(
            backend.equals("postgres") ? TestDatabases.postgres() : TestDatabases.mariadb(),
            "edge-single-commit",
            4);
    return pool;
  }

  @AfterEach
  void drop() throws SQLException {
    if (pool == null) {
      return;
    }
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      s.execute("DROP TABLE IF EXISTS " + side);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgres", "mariadb"})
  void aConnectionInTheCallersOwnTransactionIsRefusedAndItsWorkLeftAsItWas(String backend)
      throws Exception {
    HikariDataSource data = pool(backend);
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(data).tableName(table).createSchemaIfMissing(true).build();
    store.verify();
    try (Connection c = data.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + side + " (note VARCHAR(40))");
    }
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    ToolCall call = ToolCall.of("acme", "stop_session", "k-" + suffix, Map.of("session_id", "s1"));
    AtomicInteger runs = new AtomicInteger();

    try (Connection mine = data.getConnection()) {
      mine.setAutoCommit(false);
      try (Statement s = mine.createStatement()) {
        s.executeUpdate("INSERT INTO " + side + " VALUES ('the caller''s earlier work')");
      }

      GateResult<String> result =
          gate.executeSingleCommit(
              call,
              ResultMapper.utf8(),
              store.singleCommit(mine),
              (c, ctx) -> {
                runs.incrementAndGet();
                return "stopped";
              });

      assertThat(result).as("%s", result).isInstanceOf(GateResult.Failed.class);
      GateResult.Failed<String> failed = (GateResult.Failed<String>) result;
      assertThat(failed.effect()).isEqualTo(GateResult.Effect.NO);
      assertThat(failed.cause())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
      assertThat(runs.get()).as("runs of the action").isZero();
      assertThat(mine.getAutoCommit()).as("the caller's connection's auto-commit").isFalse();
      assertThat(rows(mine, side)).as("the caller's work, in its transaction").isEqualTo(1);
      assertThat(rowsElsewhere(data, side)).as("the caller's work, committed").isZero();
      mine.rollback();
      assertThat(rows(mine, side)).as("the caller's work, after its rollback").isZero();
    }
    assertThat(store.find(new ClaimId("acme", "stop_session", "k-" + suffix))).isEmpty();

    // the scope says so itself, to a caller that drives it directly
    try (Connection mine = data.getConnection()) {
      mine.setAutoCommit(false);
      assertThatThrownBy(() -> store.singleCommit(mine).begin())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
      mine.rollback();
      mine.setAutoCommit(true);
    }
  }

  private static int rows(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static int rowsElsewhere(HikariDataSource data, String table) throws SQLException {
    try (Connection other = data.getConnection()) {
      return rows(other, table);
    }
  }
}
