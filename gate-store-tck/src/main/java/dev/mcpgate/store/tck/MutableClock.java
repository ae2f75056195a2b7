package dev.mcpgate.store.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that a test moves by hand, for a store that takes a {@link Clock}: give it to the store
 * and implement {@link IdempotencyStoreContract#elapse(Duration)} with {@link #advance(Duration)},
 * and the suite's expiry tests run without sleeping. Thread-safe; always in UTC.
 */
public final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;

  /**
   * @param start the instant the clock shows until it is first advanced
   */
  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /**
   * Moves the clock forward.
   *
   * @param d how far; a negative duration moves it back
   */
  public void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /**
   * @return this clock: it has one zone, UTC, and one instant shared by every caller
   */
  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
