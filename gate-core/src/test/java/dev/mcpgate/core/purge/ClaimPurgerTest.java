package dev.mcpgate.core.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The scheduled purge: batches until one comes back short, on its own thread, survives failures.
 */
class ClaimPurgerTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create(clock);

  private void claims(String prefix, int n, Duration retention) {
    for (int i = 0; i < n; i++) {
      memory.claim(
          new ClaimRequest(
              new ClaimId("acme", "refund_order", prefix + i),
              "v1:a",
              LeaseToken.random(),
              Duration.ofSeconds(1),
              retention));
    }
  }

  /** Counts purge calls and can fail them. */
  private static final class Counting extends ForwardingIdempotencyStore {
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean failing;

    Counting(InMemoryIdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public int purgeExpired(int limit) {
      calls.incrementAndGet();
      if (failing) {
        throw new IllegalStateException("the database is down (test)");
      }
      return super.purgeExpired(limit);
    }
  }

  @Test
  void aRoundPurgesInBatchesUntilOneComesBackShortAndKeepsLiveRows() {
    claims("old-", 25, Duration.ofMinutes(1));
    claims("live-", 3, Duration.ofHours(1));
    clock.advance(Duration.ofMinutes(2));
    Counting store = new Counting(memory);
    try (ClaimPurger purger = ClaimPurger.start(store, Duration.ofHours(1), 10)) {
      assertThat(purger.purgeOnce()).isEqualTo(25);
      assertThat(store.calls).as("10, 10, 5").hasValue(3);
    }
    assertThat(memory.find(new ClaimId("acme", "refund_order", "live-0"))).isPresent();
    assertThat(memory.find(new ClaimId("acme", "refund_order", "old-0"))).isEmpty();
  }

  @Test
  void itRunsOnItsOwnThreadEveryIntervalAndGoesOnAfterAFailure() throws Exception {
    Counting store = new Counting(memory);
    store.failing = true;
    try (ClaimPurger purger = ClaimPurger.start(store, Duration.ofMillis(20), 10)) {
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (store.calls.get() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(store.calls.get()).as("a failed round does not stop the next").isGreaterThan(1);
      store.failing = false;
      claims("old-", 4, Duration.ofMinutes(1));
      clock.advance(Duration.ofMinutes(2));
      while (memory.find(new ClaimId("acme", "refund_order", "old-0")).isPresent()
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(memory.find(new ClaimId("acme", "refund_order", "old-0"))).isEmpty();
    }
    int after = store.calls.get();
    Thread.sleep(100);
    assertThat(store.calls.get()).as("closed: no more rounds").isEqualTo(after);
  }

  @Test
  void badSettingsAreRefusedAndNamed() {
    assertThatThrownBy(() -> ClaimPurger.start(memory, Duration.ZERO, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> ClaimPurger.start(memory, Duration.ofMinutes(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batch size");
    assertThatThrownBy(() -> ClaimPurger.start(null, Duration.ofMinutes(1), 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("store");
  }
}
