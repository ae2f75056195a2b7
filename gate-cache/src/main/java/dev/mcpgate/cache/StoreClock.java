package dev.mcpgate.cache;

import com.github.benmanes.caffeine.cache.Expiry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The store's clock as a {@link ReplayCache} estimates it, against the monotonic clock: measured at
 * every claim that reaches the store, and from it, until when a cached row may be used, and when
 * Caffeine drops it (see the cache's "The store's clock"). Times are nanoseconds: monotonic, or
 * since the epoch on the store's clock.
 */
final class StoreClock {
  private final LongSupplier nanoTime;
  private final long marginNanos;
  private final long clockCheckNanos;

  /** The largest (store's clock in epoch nanos) - (monotonic nanos before sending) seen. */
  private final AtomicLong offsetNanos = new AtomicLong(Long.MIN_VALUE);

  /** Monotonic nanos (before sending) of the latest claim answer; MIN_VALUE before the first. */
  private final AtomicLong lastMeasuredNanos = new AtomicLong(Long.MIN_VALUE);

  StoreClock(LongSupplier nanoTime, Duration margin, Duration clockCheck) {
    this.nanoTime = nanoTime;
    this.marginNanos = margin.toNanos();
    this.clockCheckNanos = clockCheck.toNanos();
  }

  /**
   * @return the monotonic time now
   */
  long nanoTime() {
    return nanoTime.getAsLong();
  }

  /**
   * @return the store's now, as estimated, when a row expiring at {@code expiresAtNanos} may be
   *     answered from the cache (the last measurement is younger than the clock check, and the
   *     estimate plus the margin is before the expiry); else null
   */
  Instant cachedAnswerAt(long expiresAtNanos) {
    long now = nanoTime.getAsLong();
    long offset = offsetNanos.get();
    long measuredAt = lastMeasuredNanos.get();
    if (measuredAt != Long.MIN_VALUE
        && now - measuredAt <= clockCheckNanos
        && now + offset + marginNanos < expiresAtNanos) {
      return instantOfEpochNanos(now + offset);
    }
    return null;
  }

  /** Takes the store's now from a claim's answer, sent at monotonic {@code sent}. */
  void measured(Instant storeNow, long sent) {
    offsetNanos.accumulateAndGet(epochNanos(storeNow) - sent, Math::max);
    lastMeasuredNanos.accumulateAndGet(
        sent, (last, next) -> last == Long.MIN_VALUE || next - last > 0 ? next : last);
  }

  /**
   * @return the monotonic time from which a row expiring at {@code expiresAtNanos} may have
   *     expired, less the margin
   */
  long usableUntil(long expiresAtNanos) {
    long offset = offsetNanos.get();
    if (offset == Long.MIN_VALUE) {
      return Long.MIN_VALUE;
    }
    return saturatedSubtract(expiresAtNanos - marginNanos, offset);
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
