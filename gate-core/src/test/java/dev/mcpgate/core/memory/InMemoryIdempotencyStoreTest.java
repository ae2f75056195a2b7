package dev.mcpgate.core.memory;

import dev.mcpgate.core.contract.IdempotencyStoreContract;
import dev.mcpgate.core.contract.MutableClock;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.time.Instant;

/** The store contract on the in-memory store, with a clock the tests move (no sleeping). */
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
