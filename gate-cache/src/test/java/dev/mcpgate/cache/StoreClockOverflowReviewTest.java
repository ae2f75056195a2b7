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
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Review of 619757f: an offset {@code storeNow - sent + 1 ms} overflowed a long when {@code
 * System.nanoTime()}'s origin was far enough in the future (its Javadoc allows any origin, "perhaps
 * in the future, so values may be negative"); once two offsets straddled the wrap, {@code Math.max}
 * kept the smaller one and the estimate ran behind the store. The cache now counts monotonic time
 * from when it was made.
 */
class StoreClockOverflowReviewTest {
  private static final Duration RETENTION = Duration.ofSeconds(10);
  private static final Instant S0 = Instant.parse("2026-06-01T00:00:00Z");

  @Test
  void aNanoTimeOriginInTheFutureMustNotLetASuspendedHostReplayAnExpiredRow() {
    MutableClock storeClock = new MutableClock(S0);
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(storeClock);
    // nanoTime such that the first offset is 2 s short of Long.MAX_VALUE
    long base =
        Clocks.epochNanos(S0) + StoreClock.STORE_TICK_NANOS - (Long.MAX_VALUE - 2_000_000_000L);
    AtomicLong nanos = new AtomicLong(base);
    AtomicLong uncounted = new AtomicLong();
    InstantSource wall =
        () -> Instant.parse("2026-01-01T00:00:00Z").plusNanos(nanos.get() - base + uncounted.get());
    ReplayCache cache = ReplayCache.builder(store).nanoTime(nanos::get).wallClock(wall).build();
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(cache)
            .policy(GatePolicy.builder().retention(RETENTION).build())
            .build()) {
      Map<String, Object> args = Map.of("amount", 42);
      Map<String, Object> other = Map.of("amount", 43);
      ToolCall k = ToolCall.of("acme", "refund_order", "k", args);
      gate.execute(k, ResultMapper.utf8(), ctx -> "run " + runs.incrementAndGet());
      gate.execute(k, ResultMapper.utf8(), ctx -> "run " + runs.incrementAndGet()); // fills

      // the host sleeps 12 s: the store's clock and the wall clock run on, nanoTime does not
      storeClock.advance(Duration.ofSeconds(12));
      uncounted.addAndGet(Duration.ofSeconds(12).toNanos());
      nanos.addAndGet(1_000_000);
      storeClock.advance(Duration.ofMillis(1));
      // one claim reaches the store after the resume and measures it (its offset wraps)
      gate.execute(
          ToolCall.of("acme", "refund_order", "unrelated", args),
          ResultMapper.utf8(),
          ctx -> "run " + runs.incrementAndGet());

      // the row of k expired on the store's clock 2 s ago: the store would run this fresh
      GateResult<String> reused =
          gate.execute(
              ToolCall.of("acme", "refund_order", "k", other),
              ResultMapper.utf8(),
              ctx -> "run " + runs.incrementAndGet());
      assertThat(reused).isInstanceOf(GateResult.Executed.class);
      assertThat(cache.stats().hits()).isZero();
    }
  }
}
