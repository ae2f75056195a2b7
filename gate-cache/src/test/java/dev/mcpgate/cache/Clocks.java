package dev.mcpgate.cache;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
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
    private final AtomicLong uncounted = new AtomicLong();

    void advance(Duration d) {
      nanos.addAndGet(d.toNanos());
    }

    /** Lets d pass on the wall clock only, as a suspended host does: this clock stops. */
    void suspend(Duration d) {
      uncounted.addAndGet(d.toNanos());
    }

    /**
     * @return a wall clock that moves with this clock (from an origin of its own), and also by what
     *     {@link #suspend} lets pass
     */
    InstantSource wall() {
      return () -> Instant.parse("2026-01-01T00:00:00Z").plusNanos(nanos.get() + uncounted.get());
    }

    @Override
    public long getAsLong() {
      return nanos.get();
    }
  }
}
