package dev.mcpgate.cache;

import com.github.benmanes.caffeine.cache.Expiry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The store's clock as a {@link ReplayCache} estimates it, against the monotonic clock: measured at
 * every claim that reaches the store, and from it, until when a cached row may be used, and when
 * Caffeine drops it (see the cache's "The store's clock"). Times are nanoseconds: monotonic, or
 * since the epoch on the store's clock.
 */
final class StoreClock {
  /**
   * The finest step of a store's clock (a millisecond, by the SPI): an answer's clock may read up
   * to this much behind the instant the store took it, so each offset measured is raised by it.
   */
  static final long STORE_TICK_NANOS = 1_000_000;

  private final LongSupplier nanoTime;
  private final long originNanos;
  private final InstantSource wallClock;
  private final long marginNanos;
  private final long clockCheckNanos;

  /** The latest measurement and the largest offset; null before the first (or after forget). */
  private final AtomicReference<Measured> measured = new AtomicReference<>();

  /**
   * What the answers that reached the store have shown of its clock.
   *
   * @param sentNanos monotonic nanos before sending the latest claim answered
   * @param sentWallMillis the wall clock's millis then
   * @param offsetNanos the largest (store's clock in epoch nanos) - (monotonic nanos before
   *     sending), plus a store tick, of every answer since the first (or since {@link #forget}):
   *     kept, not aged, because a store clock seen once (a primary failed over from) may be the
   *     store's clock again, and an entry cached meanwhile must not outlive its row there
   */
  private record Measured(long sentNanos, long sentWallMillis, long offsetNanos) {

    Measured and(long sent, long wallMillis, long offset) {
      boolean latest = sent - sentNanos > 0;
      return new Measured(
          latest ? sent : sentNanos,
          latest ? wallMillis : sentWallMillis,
          Math.max(offsetNanos, offset));
    }
  }

  StoreClock(LongSupplier nanoTime, InstantSource wallClock, Duration margin, Duration clockCheck) {
    this.nanoTime = nanoTime;
    // monotonic times are counted from here: System.nanoTime()'s origin may be anywhere, even in
    // the future, and offsets near Long.MIN_VALUE or MAX_VALUE would wrap and compare wrongly
    this.originNanos = nanoTime.getAsLong();
    this.wallClock = wallClock;
    this.marginNanos = margin.toNanos();
    this.clockCheckNanos = clockCheck.toNanos();
  }

  /**
   * @return the monotonic time now, in nanos since this clock was made
   */
  long nanoTime() {
    return nanoTime.getAsLong() - originNanos;
  }

  /**
   * @return the wall clock's millis now; read only to notice time the monotonic clock missed
   */
  long wallMillis() {
    return wallClock.millis();
  }

  /**
   * @return the store's now, as estimated, when a row expiring at {@code expiresAtNanos} may be
   *     answered from the cache (the last measurement is younger than the clock check, and the
   *     estimate plus the margin is before the expiry); else null
   */
  Instant cachedAnswerAt(long expiresAtNanos) {
    long now = nanoTime();
    long wall = wallClock.millis();
    Measured m = measured.get();
    if (m == null) {
      return null;
    }
    long elapsed = now - m.sentNanos;
    // time the monotonic clock did not count (it stops while the host is suspended; the store's
    // clock does not): what the wall clock counted beyond it. The wall clock's millisecond steps
    // need no rounding up: the store's clock counts the same time in the same steps, and the
    // store tick added to each offset covers them
    long missed = Math.max(0, (wall - m.sentWallMillis) * 1_000_000 - elapsed);
    long estimate = now + m.offsetNanos() + missed;
    if (elapsed + missed <= clockCheckNanos && estimate + marginNanos < expiresAtNanos) {
      return instantOfEpochNanos(estimate);
    }
    return null;
  }

  /**
   * Takes the store's now from a claim's answer, sent at {@code sent} ({@link #nanoTime}) when the
   * wall clock read {@code sentWallMillis}.
   */
  void measured(Instant storeNow, long sent, long sentWallMillis) {
    long offset = epochNanos(storeNow) - sent + STORE_TICK_NANOS;
    measured.accumulateAndGet(
        null,
        (m, unused) ->
            m == null
                ? new Measured(sent, sentWallMillis, offset)
                : m.and(sent, sentWallMillis, offset));
  }

  /**
   * Forgets every measurement (after the cache's entries were dropped): the next claim measures the
   * store's clock afresh, and no entry is answered before it.
   */
  void forget() {
    measured.set(null);
  }

  /**
   * @return the monotonic time from which a row expiring at {@code expiresAtNanos} may have
   *     expired, less the margin
   */
  long usableUntil(long expiresAtNanos) {
    Measured m = measured.get();
    if (m == null) {
      return Long.MIN_VALUE;
    }
    return saturatedSubtract(expiresAtNanos - marginNanos, m.offsetNanos());
  }

  /**
   * @return Caffeine's expiry of an entry whose row expires at {@code expiresAtNanos}: at {@link
   *     #usableUntil}, set when the entry is written, kept when it is read
   */
  <K, V> Expiry<K, V> expiry(ToLongFunction<V> expiresAtNanos) {
    return new Expiry<K, V>() {
      @Override
      public long expireAfterCreate(K key, V value, long currentTime) {
        long left = saturatedSubtract(usableUntil(expiresAtNanos.applyAsLong(value)), currentTime);
        return Math.min(Math.max(0, left), Long.MAX_VALUE >> 2);
      }

      @Override
      public long expireAfterUpdate(K key, V value, long currentTime, long currentDuration) {
        return expireAfterCreate(key, value, currentTime);
      }

      @Override
      public long expireAfterRead(K key, V value, long currentTime, long currentDuration) {
        return currentDuration;
      }
    };
  }

  private static long saturatedSubtract(long a, long b) {
    long r = a - b;
    // overflow when the operands have different signs and the result's sign differs from a's
    if (((a ^ b) & (a ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  static long epochNanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    } catch (ArithmeticException e) {
      return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private static Instant instantOfEpochNanos(long nanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
  }
}
