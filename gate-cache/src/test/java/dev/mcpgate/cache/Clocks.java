package dev.mcpgate.cache;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** Clocks for the tests: a monotonic clock moved by hand. */
final class Clocks {
  private Clocks() {}

  static long epochNanos(Instant t) {
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  /** A monotonic clock (like {@link System#nanoTime()}) that tests move by hand. */
  static final class ManualNanos implements LongSupplier {
    private final AtomicLong nanos = new AtomicLong(123_456_789L);

    void advance(Duration d) {
      nanos.addAndGet(d.toNanos());
    }

    @Override
    public long getAsLong() {
      return nanos.get();
    }
  }
}
