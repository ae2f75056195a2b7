package dev.mcpgate.core.purge;

import static org.assertj.core.api.Assertions.assertThat;

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
 * Review (reviewer E): the purger promises "a failure is logged at WARN and the next round tries
 * again". A round that fails with an {@link Error} (a transient OutOfMemoryError while a purge
 * reads a page of rows, a LinkageError) escapes {@code round()}'s {@code catch (RuntimeException)},
 * and {@code scheduleWithFixedDelay} then suppresses every later round: the purge stops for good,
 * with no log line (the Error is kept in a future nobody reads), and the claims table grows without
 * end. The application, which survived the one Error, is never told.
 */
class ClaimPurgerErrorReviewTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create(clock);

  /** Fails the first purge call with an Error, then purges as the store does. */
  private static final class FailsOnceWithAnError extends ForwardingIdempotencyStore {
    final AtomicInteger calls = new AtomicInteger();

    FailsOnceWithAnError(InMemoryIdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public int purgeExpired(int limit) {
      if (calls.incrementAndGet() == 1) {
        throw new OutOfMemoryError("Java heap space (test: one transient failure)");
      }
      return super.purgeExpired(limit);
    }
  }

  private ClaimId claimExpiring(String key, Duration retention) {
    ClaimId id = new ClaimId("acme", "refund_order", key);
    memory.claim(
        new ClaimRequest(id, "v1:a", LeaseToken.random(), Duration.ofSeconds(1), retention));
    return id;
  }

  @Test
  void aRoundThatFailsWithAnErrorDoesNotStopTheLaterRounds() throws Exception {
    FailsOnceWithAnError store = new FailsOnceWithAnError(memory);
    try (ClaimPurger purger = ClaimPurger.start(store, Duration.ofMillis(20), 10)) {
      long deadline = System.nanoTime() + 3_000_000_000L;
      while (store.calls.get() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(store.calls.get()).as("the first round ran, and failed").isGreaterThan(0);
      ClaimId old = claimExpiring("old-0", Duration.ofMinutes(1));
      clock.advance(Duration.ofMinutes(2)); // the row has expired: the next round deletes it
      while (memory.find(old).isPresent() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(store.calls.get())
          .as("rounds after the failed one (each 20 ms, for about 3 s)")
          .isGreaterThan(1);
      assertThat(memory.find(old)).as("the expired row is purged by a later round").isEmpty();
    }
  }
}
