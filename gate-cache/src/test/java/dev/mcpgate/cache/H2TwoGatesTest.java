package dev.mcpgate.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two gates, each with its own store object and its own replay cache (two processes, as far as the
 * cache can tell), on one H2 table, in real time: the database's clock decides expiry.
 */
class H2TwoGatesTest {
  private static final Duration RETENTION = Duration.ofMillis(1_500);
  private static final Duration MARGIN = Duration.ofMillis(300);
  private final String tenant = "t-" + UUID.randomUUID();
  private final AtomicInteger runs = new AtomicInteger();

  private GateResult<String> call(IdempotencyGate gate, Map<String, ?> args) {
    return gate.execute(
        ToolCall.of(tenant, "refund_order", "k", args),
        ResultMapper.utf8(),
        ctx -> "refund #" + runs.incrementAndGet() + " for " + args);
  }

  @Test
  void twoGatesOnOneDatabaseAgreeBeforeAndAfterTheRowExpires() throws Exception {
    Map<String, Object> args = Map.of("order", "o-1", "amount", 42);
    Map<String, Object> other = Map.of("order", "o-1", "amount", 43);
    GatePolicy policy =
        GatePolicy.builder()
            .retention(RETENTION)
            .lease(Duration.ofMillis(800))
            .leaseRenewal(Duration.ofMillis(200))
            .build();
    try (JdbcIdempotencyStore storeA = H2.store();
        JdbcIdempotencyStore storeB = H2.store()) {
      CountingStore countedA = new CountingStore(storeA);
      CountingStore countedB = new CountingStore(storeB);
      ReplayCache cacheA = ReplayCache.builder(countedA).margin(MARGIN).build();
      ReplayCache cacheB = ReplayCache.builder(countedB).margin(MARGIN).build();
      try (IdempotencyGate a = IdempotencyGate.builder(cacheA).policy(policy).build();
          IdempotencyGate b = IdempotencyGate.builder(cacheB).policy(policy).build()) {
        long start = System.nanoTime();
        assertThat(call(a, args)).isInstanceOf(GateResult.Executed.class);
        assertThat(call(b, args)).isInstanceOf(GateResult.Replayed.class); // fills b
        assertThat(call(a, args)).isInstanceOf(GateResult.Replayed.class); // fills a
        int aClaims = countedA.claims.get();
        int bClaims = countedB.claims.get();
        assertThat(call(a, args)).isInstanceOf(GateResult.Replayed.class);
        assertThat(call(b, other))
            .isInstanceOfSatisfying(
                GateResult.Refused.class,
                r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
        if (System.nanoTime() - start < Duration.ofMillis(900).toNanos()) {
          // well before the margin: both answered from their caches
          assertThat(countedA.claims.get()).isEqualTo(aClaims);
          assertThat(countedB.claims.get()).isEqualTo(bClaims);
        }

        Thread.sleep(RETENTION.toMillis() + 100); // the row expires on the database's clock
        assertThat(call(b, other)).isInstanceOf(GateResult.Executed.class);
        // a cached the first row; it must see b's new row instead
        assertThat(call(a, args))
            .isInstanceOfSatisfying(
                GateResult.Refused.class,
                r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
        assertThat(call(a, other))
            .isInstanceOfSatisfying(
                GateResult.Replayed.class,
                r -> assertThat(r.value()).isEqualTo("refund #2 for " + other));
        assertThat(runs).hasValue(2);
      }
    }
  }
}
