package dev.mcpgate.cache;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;

/**
 * The store contract on the in-memory store behind a replay cache with its default settings: the
 * decorator keeps every promise of the store it wraps. Time passes on both clocks at once (the
 * store's and the cache's monotonic one), as real time does.
 */
class InMemoryReplayCacheContractTest extends IdempotencyStoreContract {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));

  @Override
  protected IdempotencyStore createStore() {
    return ReplayCache.builder(InMemoryIdempotencyStore.create(clock))
        .nanoTime(() -> Clocks.epochNanos(clock.instant()))
        .wallClock(clock)
        .build();
  }

  @Override
  protected void elapse(Duration d) {
    clock.advance(d);
  }
}
