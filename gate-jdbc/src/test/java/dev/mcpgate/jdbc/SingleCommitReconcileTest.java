package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Single-commit mode meets a key whose outcome is unknown (fenced by a plain attempt before): the
 * reconciler is asked first, and its verdict is applied without leaving a row nobody holds; an
 * unknown key stays fenced past its lease without one.
 */
class SingleCommitReconcileTest {
  private static final String EFFECTS = "reconcile_effects";
  private final HikariDataSource ds = TestDatabases.pool(TestDatabases.h2(), "h2-reconcile", 8);
  private final JdbcIdempotencyStore store =
      JdbcIdempotencyStore.builder(ds)
          .tableName("reconcile_claims")
          .createSchemaIfMissing(true)
          .build();
  private final String tenant = "t-" + UUID.randomUUID();

  @BeforeEach
  void effectsTable() throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS " + EFFECTS + " (tenant VARCHAR(64), what VARCHAR(64))");
    }
  }

  private ToolCall call(String key) {
    return ToolCall.of(tenant, "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  private int effects() throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + EFFECTS + " WHERE tenant = ?")) {
      ps.setString(1, tenant);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private void effect(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + EFFECTS + " VALUES (?, ?)")) {
      ps.setString(1, tenant);
      ps.setString(2, "refund");
      ps.executeUpdate();
    }
  }

  /** A plain attempt whose outcome was unknown, its lease long run out. */
  private void fencedUnknown(String key) throws InterruptedException {
    IdempotencyGate plain =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    // long enough that a claim answered slowly on a loaded machine still starts
                    // its action (a lease with less than a period and a deadline left is
                    // confirmed with the store first, and refused if it cannot be)
                    .lease(Duration.ofMillis(1_000))
                    .leaseRenewal(Duration.ZERO)
                    .build())
            .build();
    assertThatThrownBy(
            () ->
                plain
                    .execute(
                        call(key),
                        ResultMapper.utf8(),
                        ctx -> {
                          throw new OutcomeUnknownException("the provider timed out (test)");
                        })
                    .orThrow())
        .isInstanceOf(OutcomeUnknownException.class);
    Thread.sleep(1_200); // past the lease
  }

  @Test
  void aReconcilerThatSaysNotHappenedLetsTheSingleCommitRetryRunOnce() throws Exception {
    fencedUnknown("k");
    AtomicInteger asked = new AtomicInteger();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .reconciler(
                        (id, downstreamKey) -> {
                          asked.incrementAndGet();
                          return Reconciler.Verdict.notHappened();
                        })
                    .build())
            .build();

    GateResult<String> retry =
        gate.executeSingleCommit(
            call("k"),
            ResultMapper.utf8(),
            store.singleCommit(),
            (c, ctx) -> {
              effect(c);
              return "refunded";
            });

    assertThat(retry)
        .isInstanceOfSatisfying(
            GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("refunded"));
    assertThat(asked).hasValue(1);
    assertThat(effects()).isEqualTo(1);
    assertThat(store.find(call("k").id()).orElseThrow().state())
        .as("completed by the retry, not an in-progress row nobody holds")
        .isEqualTo(ClaimState.COMPLETED);
  }

  @Test
  void aReconcilerThatSaysHappenedIsReplayedBySingleCommit() throws Exception {
    fencedUnknown("k");
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .reconciler(
                        (id, downstreamKey) ->
                            Reconciler.Verdict.happened(
                                "refunded downstream".getBytes(StandardCharsets.UTF_8)))
                    .build())
            .build();

    GateResult<String> retry =
        gate.executeSingleCommit(
            call("k"),
            ResultMapper.utf8(),
            store.singleCommit(),
            (c, ctx) -> {
              effect(c);
              return "refunded again";
            });

    assertThat(retry)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("refunded downstream"));
    assertThat(effects()).isZero();
  }

  @Test
  void withoutAReconcilerAnUnknownKeyStaysFencedPastItsLease() throws Exception {
    fencedUnknown("k");
    IdempotencyGate gate = IdempotencyGate.builder(store).build();

    GateResult<String> retry =
        gate.executeSingleCommit(
            call("k"),
            ResultMapper.utf8(),
            store.singleCommit(),
            (c, ctx) -> {
              effect(c);
              return "refunded";
            });

    assertThat(retry)
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN));
    assertThat(effects()).isZero();
    assertThat(store.find(call("k").id()).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
  }
}
