package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review of 6f157c5 on PostgreSQL (the store's clock, its INSERT .. ON CONFLICT claim): as on the
 * in-memory store (dev.mcpgate.core.review.OperatorSettlementTakeoverReviewTest), an operator's
 * settlement that fails between its takeover (the claim) and its fence (markUnknown) has already
 * taken the key from the paused holder: the holder's completion is refused, and one lease later a
 * retry runs the action a second time.
 *
 * <p>Fixed (6354156): the takeover's lease is the unknown-outcome fence, so a settlement that stops
 * after it leaves the key claimed: the holder's completion is refused, and the retry is refused,
 * never run.
 */
class SettlementTakeoverPostgresReviewTest {

  private static final String TABLE = "review_settle_takeover";

  @Test
  void aSettlementThatFailsBeforeItsFenceNeverLetsTheActionRunTwice() throws Exception {
    try (HikariDataSource pool = TestDatabases.pool(TestDatabases.postgres(), "review-pg", 4)) {
      try (Connection c = pool.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + TABLE);
      }
      JdbcIdempotencyStore jdbc =
          JdbcIdempotencyStore.builder(pool).tableName(TABLE).createSchemaIfMissing(true).build();
      jdbc.verify();
      AtomicBoolean failMarkUnknown = new AtomicBoolean();
      ForwardingIdempotencyStore store =
          new ForwardingIdempotencyStore(jdbc) {
            @Override
            public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
              if (failMarkUnknown.getAndSet(false)) {
                throw new StoreUnavailableException("connection reset (injected)", null);
              }
              return super.markUnknown(id, token, fence);
            }
          };
      GatePolicy policy = GatePolicy.builder().lease(Duration.ofSeconds(1)).build();
      ToolCall call = ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
      AtomicInteger runs = new AtomicInteger();
      try (IdempotencyGate gate = IdempotencyGate.builder(store).policy(policy).build()) {
        ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(call);
        runs.incrementAndGet(); // the holder's action runs (the refund is paid)
        Thread.sleep(1_300); // the holder is paused past its lease

        failMarkUnknown.set(true);
        assertThatThrownBy(
                () ->
                    gate.resolveUnknown(
                        call.id(),
                        Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8))))
            .isInstanceOf(StoreUnavailableException.class);

        boolean stored = gate.complete(holder, "refunded".getBytes(StandardCharsets.UTF_8), false);
        Thread.sleep(1_300);
        GateResult<String> retry =
            gate.execute(
                call,
                ResultMapper.utf8(),
                ctx -> {
                  runs.incrementAndGet();
                  return "refunded again";
                });

        assertThat(runs).as("the refund ran a second time (holder stored: %s)", stored).hasValue(1);
        // the settlement took the key over before it failed: the holder is told its lease was
        // lost, and the key stays claimed under the fence's lease, so the retry is refused
        assertThat(stored).isFalse();
        assertThat(retry).isInstanceOf(GateResult.Refused.class);
      } finally {
        jdbc.close();
      }
    }
  }
}
