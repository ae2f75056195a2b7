package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.jdbc.ClaimsTableException;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Review of ClaimIdentity (ff85b135): the gate refuses a claim the store answers with another key's
 * row. The JDBC store answers a TAKEOVER (an expired in-progress row, or an expired unknown fence)
 * with {@code ClaimRows.newRow(request, ...)}: the id of the request, not of the row it took over.
 * On a table whose key columns compare without case (the very tables ClaimIdentity is for), the
 * claim of {@code refund-1} takes over the expired row of {@code Refund-1}, passes the identity
 * check, runs, and completes that row; a retry of {@code Refund-1} is then told a replay of {@code
 * refund-1}'s result (across tenants too: {@code Acme} gets {@code acme}'s result).
 */
class ClaimIdentityTakeoverReviewTest {

  private static final Map<String, Object> ARGS = Map.of("order_id", "ord_1", "amount", 10);

  private static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static String postgresCiTable(String table) {
    String keyType = "VARCHAR(255) COLLATE rv_ci";
    return "CREATE TABLE "
        + table
        + " ( tenant "
        + keyType
        + " NOT NULL, tool "
        + keyType
        + " NOT NULL, idem_key "
        + keyType
        + " NOT NULL,"
        + " args_hash VARCHAR(80) NOT NULL, state VARCHAR(16) NOT NULL,"
        + " lease_token VARCHAR(64) NOT NULL, attempt INTEGER NOT NULL,"
        + " created_at_ms BIGINT NOT NULL, lease_expires_at_ms BIGINT NOT NULL,"
        + " expires_at_ms BIGINT NOT NULL, completed_at_ms BIGINT, result_kind VARCHAR(16),"
        + " result BYTEA, PRIMARY KEY (tenant, tool, idem_key)) WITH (fillfactor = 80)";
  }

  /** The holder of {@code key} stopped (crashed): its lease ran out, as time passing would do. */
  private static void expireLease(DataSource ds, String table, String tenant, String key)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE "
                    + table
                    + " SET lease_expires_at_ms = 0 WHERE tenant = ? AND idem_key = ? AND"
                    + " state = 'IN_PROGRESS'")) {
      ps.setString(1, tenant);
      ps.setString(2, key);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  private interface Run {
    GateResult<String> call(IdempotencyGate gate, ToolCall call, AtomicInteger runs);
  }

  private static final Run PLAIN =
      (gate, call, runs) ->
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx ->
                  "refund "
                      + runs.incrementAndGet()
                      + " for tenant ["
                      + call.id().tenant()
                      + "] key ["
                      + call.id().key()
                      + "]");

  private static Run singleCommit(ClaimingScope<Connection> scope) {
    return (gate, call, runs) ->
        gate.executeSingleCommit(
            call,
            ResultMapper.utf8(),
            scope,
            (connection, ctx) ->
                "refund "
                    + runs.incrementAndGet()
                    + " for tenant ["
                    + call.id().tenant()
                    + "] key ["
                    + call.id().key()
                    + "]");
  }

  /**
   * {@code first} is claimed and its holder stops; {@code second} (equal under the table's
   * collation, not equal as sent) arrives after the lease ran out; then {@code first} is retried.
   * Neither may be told the other's result.
   */
  private static void takeoverKeepsKeysApart(
      String what, ToolCall first, ToolCall second, boolean useSingleCommit) throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.postgres("idn-takeover-" + what, 3)) {
      exec(
          ds,
          "CREATE COLLATION IF NOT EXISTS rv_ci (provider = icu, locale = 'und-u-ks-level2',"
              + " deterministic = false)");
      String table = "rv_takeover_" + what + "_" + Long.toHexString(System.nanoTime());
      exec(ds, postgresCiTable(table));
      exec(ds, "CREATE INDEX " + table + "_created_idx ON " + table + " (created_at_ms)");
      JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(table).build();
      IdempotencyGate gate = IdempotencyGate.builder(store).build();
      try {
        try {
          store.verify();
        } catch (ClaimsTableException refused) {
          System.out.println("REVIEW verify refused: " + refused.getMessage());
          return; // the table is refused, naming why: the promise kept
        }
        Run run = useSingleCommit ? singleCommit(store.singleCommit()) : PLAIN;
        // the first intent's holder claims, then stops (a crash); its lease runs out
        ClaimOutcome held = gate.claim(first);
        assertThat(held).isInstanceOf(ClaimOutcome.Acquired.class);
        expireLease(ds, table, first.id().tenant(), first.id().key());

        AtomicInteger runs = new AtomicInteger();
        GateResult<String> other = run.call(gate, second, runs);
        GateResult<String> retry = run.call(gate, first, runs);
        System.out.println("REVIEW held=" + held + "\nother=" + other + "\nretry=" + retry);
        assertThat(List.of(other, retry))
            .as(
                "[%s] after [%s]'s holder stopped, then [%s] retried: other=%s, retry=%s",
                second.id(), first.id(), first.id(), other, retry)
            .allSatisfy(ClaimsTableIdentityReviewTest::ownClaimOrRefusedNamingTheTable);
      } finally {
        gate.close();
        store.close();
        exec(ds, "DROP TABLE IF EXISTS " + table);
      }
    }
  }

  @Test
  void plainTakeoverOfAnotherKeysExpiredRowFailsClosed() throws SQLException {
    String tenant = "acme-" + UUID.randomUUID();
    takeoverKeepsKeysApart(
        "key",
        ToolCall.of(tenant, "refund_order", "Refund-1", ARGS),
        ToolCall.of(tenant, "refund_order", "refund-1", ARGS),
        false);
  }

  @Test
  void plainTakeoverOfAnotherTenantsExpiredRowFailsClosed() throws SQLException {
    String tenant = "acme-" + UUID.randomUUID();
    takeoverKeepsKeysApart(
        "tenant",
        ToolCall.of(tenant.toUpperCase(java.util.Locale.ROOT), "refund_order", "k-1", ARGS),
        ToolCall.of(tenant, "refund_order", "k-1", ARGS),
        false);
  }

  @Test
  void singleCommitTakeoverOfAnotherKeysExpiredRowFailsClosed() throws SQLException {
    String tenant = "acme-" + UUID.randomUUID();
    takeoverKeepsKeysApart(
        "sc",
        ToolCall.of(tenant, "refund_order", "Refund-1", ARGS),
        ToolCall.of(tenant, "refund_order", "refund-1", ARGS),
        true);
  }
}
