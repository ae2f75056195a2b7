package dev.mcpgate.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review of 619757f, which kept the largest offset of the last one to two clock checks only: a
 * fail-over to a server whose clock is behind became the store's clock two checks later, and the
 * fail-back was then a step forward larger than the margin, for which the cache answered rows the
 * primary already held expired. The largest offset is kept again until {@code invalidateAll()}.
 */
class ReplayCacheStepBackReviewTest {
  private static final Duration RETENTION = Duration.ofSeconds(10);

  private final MutableClock storeClock =
      new MutableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS).plus(Duration.ofHours(7)));
  private final Clocks.ManualNanos nanos = new Clocks.ManualNanos();
  private final AtomicInteger runs = new AtomicInteger();

  private void pass(Duration d) {
    storeClock.advance(d);
    nanos.advance(d);
  }

  @Test
  void aFailOverToALaggingServerAndBackMustNotReplayARowThePrimaryHoldsExpired() {
    CountingStore counted = new CountingStore(InMemoryIdempotencyStore.create(storeClock));
    ReplayCache cache =
        ReplayCache.builder(counted).nanoTime(nanos).wallClock(nanos.wall()).build();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(cache)
            .policy(GatePolicy.builder().retention(RETENTION).build())
            .build()) {
      Map<String, Object> args = Map.of("amount", 42);
      Map<String, Object> other = Map.of("amount", 43);
      gate.execute(call("before", args), ResultMapper.utf8(), ctx -> "x"); // primary measured

      storeClock.advance(Duration.ofSeconds(-5)); // fail-over to a replica 5 s behind
      for (int i = 0; i < 13; i++) { // 2.6 s of traffic: the primary's offset is forgotten
        pass(Duration.ofMillis(200));
        gate.execute(call("on-replica-" + i, args), ResultMapper.utf8(), ctx -> "x");
      }
      gate.execute(call("k", args), ResultMapper.utf8(), ctx -> "run " + runs.incrementAndGet());
      gate.execute(call("k", args), ResultMapper.utf8(), ctx -> "never"); // fills the cache
      for (int i = 0; i < 28; i++) { // 5.6 s more, the clock measured all along
        pass(Duration.ofMillis(200));
        gate.execute(call("later-" + i, args), ResultMapper.utf8(), ctx -> "x");
      }

      storeClock.advance(Duration.ofSeconds(5)); // fail-back: k's row expired 0.6 s ago there
      pass(Duration.ofMillis(100));
      GateResult<String> reused =
          gate.execute(
              call("k", other), ResultMapper.utf8(), ctx -> "run " + runs.incrementAndGet());

      assertThat(reused).isInstanceOf(GateResult.Executed.class); // the primary's answer
      assertThat(runs).hasValue(2);
    }
  }

  private static ToolCall call(String key, Map<String, ?> args) {
    return ToolCall.of("acme", "refund_order", key, args);
  }
}
