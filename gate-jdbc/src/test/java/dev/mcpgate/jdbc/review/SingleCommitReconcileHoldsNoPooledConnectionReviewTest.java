package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review: in single-commit mode a call that meets a key whose outcome is unknown asks the
 * reconciler and applies its verdict through the store (a takeover claim, a completion), which
 * borrows from the store's pool, while the call still holds the pooled connection of its own rolled
 * back transaction (SingleCommitRunner closes it only after {@code claimer.existing} returns). With
 * the pool held in full (here a pool of one, the same as N single-commit calls of N unknown keys on
 * a pool of N) the reconciliation waits for a connection that only it can give back, until the
 * pool's timeout, and the call fails instead of running once. The promise: a reconciled key runs
 * (or replays) without waiting on the tools' pool for a connection the gate itself holds.
 */
class SingleCommitReconcileHoldsNoPooledConnectionReviewTest {

  @Test
  void aReconciliationInSingleCommitModeDoesNotWaitOnTheConnectionItHolds() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:h2:mem:review_reconcile_pool;DB_CLOSE_DELAY=-1");
    config.setMaximumPoolSize(1);
    config.setConnectionTimeout(2_000);
    config.setPoolName("review-reconcile-pool");
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(pool)
              .tableName("review_reconcile_pool")
              .createSchemaIfMissing(true)
              .build();
      ToolCall call =
          ToolCall.of("acme", "refund_order", "k-" + UUID.randomUUID(), Map.of("order", "o1"));
      IdempotencyGate gate =
          IdempotencyGate.builder(store)
              .policy(
                  GatePolicy.builder()
                      .reconciler((id, downstreamKey) -> Reconciler.Verdict.notHappened())
                      .build())
              .build();
      // an earlier attempt whose outcome is unknown, fenced for an hour
      String hash =
          dev.mcpgate.core.hash.ArgumentHasher.hash(
              call.arguments(), gate.policy().ignoredArguments());
      LeaseToken token = LeaseToken.random();
      store.claim(
          new ClaimRequest(call.id(), hash, token, Duration.ofMillis(50), Duration.ofHours(1)));
      assertThat(store.markUnknown(call.id(), token, Duration.ofHours(1))).isTrue();

      AtomicReference<Object> failure = new AtomicReference<>();
      GateResult<String> retry = null;
      try {
        retry =
            gate.executeSingleCommit(
                call, ResultMapper.utf8(), store.singleCommit(), (c, ctx) -> "refunded");
      } catch (RuntimeException e) {
        failure.set(e);
      }
      assertThat(failure.get()).as("the call failed").isNull();
      assertThat(retry)
          .isInstanceOfSatisfying(
              GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("refunded"));
    }
  }
}
