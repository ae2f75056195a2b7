package dev.mcpgate.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review: {@code ReplayCache.close()} now closes the store it wraps. The cache's own Javadoc
 * recommends "a cache of its own (a wrapper per store, or per group of tools)", i.e. several caches
 * over one store object, and {@code IdempotencyGate.close()} says "the store is not closed: it is
 * the caller's". Closing one group's cache closes the shared JDBC store, which then "renews no more
 * leases" while claims and completions still work: the other group's running actions lose their
 * leases, and a retry takes the key over and runs the action a second time.
 */
class ReplayCacheCloseReviewTest {
  private final String tenant = "t-" + UUID.randomUUID();

  @Test
  void closingOneGroupsCacheMustNotStopTheLeaseRenewalsOfAnotherGroupOnTheSameStore()
      throws Exception {
    GatePolicy policy =
        GatePolicy.builder()
            .retention(Duration.ofSeconds(30))
            .lease(Duration.ofMillis(400))
            .leaseRenewal(Duration.ofMillis(100))
            .build();
    AtomicInteger runs = new AtomicInteger();
    JdbcIdempotencyStore shared = H2.store();
    try {
      ReplayCache groupA = ReplayCache.wrap(shared, 100);
      ReplayCache groupB = ReplayCache.wrap(shared, 100);
      try (IdempotencyGate gateB = IdempotencyGate.builder(groupB).policy(policy).build()) {
        // the table exists and both groups have served
        gateB.execute(
            ToolCall.of(tenant, "refund_order", "warm-up", Map.of()),
            ResultMapper.utf8(),
            ctx -> "ok");
        groupA.close(); // group A's tools are retired; group B keeps serving
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);

        ToolCall call = ToolCall.of(tenant, "refund_order", "k", Map.of("amount", 42));
        CompletableFuture<GateResult<String>> first =
            CompletableFuture.supplyAsync(
                () ->
                    gateB.execute(
                        call,
                        ResultMapper.utf8(),
                        ctx -> {
                          runs.incrementAndGet();
                          running.countDown();
                          sleep(1_500); // a slow refund, its lease renewed every 100 ms
                          return "refunded";
                        }));
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
        sleep(900); // the client retries while the first call still runs
        GateResult<String> retry =
            gateB.execute(
                call,
                ResultMapper.utf8(),
                ctx -> {
                  runs.incrementAndGet();
                  return "refunded again";
                });
        first.get(10, TimeUnit.SECONDS);

        assertThat(retry).isNotInstanceOf(GateResult.Executed.class);
        assertThat(runs).hasValue(1);
      }
    } finally {
      shared.close();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
