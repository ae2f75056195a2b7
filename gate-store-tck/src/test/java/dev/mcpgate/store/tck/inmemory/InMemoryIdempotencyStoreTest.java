package dev.mcpgate.store.tck.inmemory;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;

/**
 * The store contract on the in-memory store, with a clock the tests move (no sleeping). It runs
 * here, not in gate-core (which this module depends on), and outside the suite's package, as a
 * third party's store test would: only the public API of the TCK is used.
 */
class InMemoryIdempotencyStoreTest extends IdempotencyStoreContract {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));

  @Override
  protected IdempotencyStore createStore() {
    return InMemoryIdempotencyStore.create(clock);
  }

  @Override
  protected void elapse(Duration d) {
    clock.advance(d);
  }
}
