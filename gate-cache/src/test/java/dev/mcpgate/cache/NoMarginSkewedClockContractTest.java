package dev.mcpgate.cache;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;

/**
 * The store contract behind a replay cache with the hardest settings for its own expiry: no margin,
 * a clock check of a year (so nothing but the expiry estimate drops an entry), and a store clock
 * seven hours ahead of the process's monotonic clock.
 */
class NoMarginSkewedClockContractTest extends IdempotencyStoreContract {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));

  @Override
  protected IdempotencyStore createStore() {
    return ReplayCache.builder(InMemoryIdempotencyStore.create(clock))
        .margin(Duration.ZERO)
        .clockCheck(Duration.ofDays(365))
        .nanoTime(() -> Clocks.epochNanos(clock.instant()) - Duration.ofHours(7).toNanos())
        .wallClock(clock)
        .build();
  }

  @Override
  protected void elapse(Duration d) {
    clock.advance(d);
  }
}
