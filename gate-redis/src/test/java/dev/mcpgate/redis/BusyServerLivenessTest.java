package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The busy-server scenario on Redis, with a 2 s lease renewed every 500 ms (each renewal try has
 * 500 ms; the default lease, 5 s, would outlive the actions without a renewal): 40 calls arrive
 * together, each action runs 3 s, and each client, hearing nothing, sends its call again after 2.5
 * s, once the lease has run out but for its renewals. No action runs twice while its first attempt
 * is alive: every retry is refused as in progress or replays the first result.
 */
class BusyServerLivenessTest {

  @Test
  void liveActionsOfABusyServerAreNeverRunTwice() throws Exception {
    int calls = 40;
    String tenant = "busy-" + UUID.randomUUID();
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(calls * 2);
    try (RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(TestRedis.client()).keyPrefix("mcpgate-busy:").build();
        IdempotencyGate gate =
            IdempotencyGate.builder(store)
                .policy(
                    GatePolicy.builder()
                        .lease(Duration.ofSeconds(2))
                        .leaseRenewal(Duration.ofMillis(500))
                        .build())
                .build()) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<GateResult<String>>> firsts = new ArrayList<>();
      List<Future<GateResult<String>>> retries = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        ToolCall call = ToolCall.of(tenant, "refund_order", "k-" + i, Map.of("order", i));
        firsts.add(
            pool.submit(
                () -> {
                  start.await();
                  return gate.execute(
                      call,
                      ResultMapper.utf8(),
                      ctx -> {
                        runs.computeIfAbsent(call.id().key(), k -> new AtomicInteger())
                            .incrementAndGet();
                        Thread.sleep(3_000);
                        return "refunded " + call.id().key();
                      });
                }));
        retries.add(
            pool.submit(
                () -> {
                  start.await();
                  Thread.sleep(2_500);
                  return gate.execute(
                      call,
                      ResultMapper.utf8(),
                      ctx -> {
                        runs.computeIfAbsent(call.id().key(), k -> new AtomicInteger())
                            .incrementAndGet();
                        return "refunded again " + call.id().key();
                      });
                }));
      }
      start.countDown();
      for (Future<GateResult<String>> f : firsts) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
      }
      for (Future<GateResult<String>> f : retries) {
        GateResult<String> r = f.get(60, TimeUnit.SECONDS);
        if (r instanceof GateResult.Refused<String> refused) {
          assertThat(refused.reason()).isEqualTo(RefusalReason.IN_PROGRESS);
        } else {
          assertThat(r).isInstanceOf(GateResult.Replayed.class);
        }
      }
      assertThat(runs).hasSize(calls);
      assertThat(runs.values()).as("executions per key").allSatisfy(n -> assertThat(n).hasValue(1));
    } finally {
      pool.shutdownNow();
    }
  }
}
