package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Log lines that a caller can cause on every call (an invalid tenant, a refused header), at most
 * one per cause per period (a minute by default), so that a client cannot flood the operator's log.
 * The lines in between are counted, not lost: the next line of that cause says how many there were
 * ("... [and 41 more like it since the last one]").
 *
 * <p>A cause is a constant chosen by the code ("tenant_invalid"), never a value from the call: the
 * causes are kept for the life of the instance. Past {@value #MAX_CAUSES} distinct causes, the
 * others share one period.
 */
final class RateLimitedLog {
  /** Distinct causes kept; any more share one slot. */
  static final int MAX_CAUSES = 64;

  private static final String OVERFLOW = "(other causes)";

  private final Logger log;
  private final long periodNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentMap<String, Window> windows = new ConcurrentHashMap<>();

  /**
   * @param log where the lines go
   * @return at most one line per cause a minute, timed by {@link System#nanoTime()}
   */
  static RateLimitedLog perMinute(Logger log) {
    return new RateLimitedLog(log, Duration.ofMinutes(1), System::nanoTime);
  }

  /**
   * @param log where the lines go
   * @param period the least time between two lines of one cause; positive
   * @param nanoTime the clock, in nanoseconds ({@link System#nanoTime()} outside tests)
   */
  RateLimitedLog(Logger log, Duration period, LongSupplier nanoTime) {
    this.log = requireNonNull(log, "log must not be null");
    requireNonNull(period, "period must not be null");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive, was " + period);
    }
    this.periodNanos = period.toNanos();
    this.nanoTime = requireNonNull(nanoTime, "nanoTime must not be null");
  }

  /**
   * Logs the line at ERROR, unless a line of this cause was logged less than a period ago (then
   * only counts it).
   *
   * @param cause a constant naming what happened, not a value from the call
   * @param format an SLF4J format
   * @param arguments its arguments; a last {@link Throwable} is logged as the exception
   * @return whether the line was logged
   */
  boolean error(String cause, String format, Object... arguments) {
    return log(Level.ERROR, cause, format, arguments);
  }

  /** As {@link #error}, at WARN. */
  boolean warn(String cause, String format, Object... arguments) {
    return log(Level.WARN, cause, format, arguments);
  }

  /**
   * @param level the level of the line
   * @param cause a constant naming what happened, not a value from the call
   * @param format an SLF4J format
   * @param arguments its arguments; a last {@link Throwable} is logged as the exception
   * @return whether the line was logged (false: counted into the next line of this cause)
   */
  boolean log(Level level, String cause, String format, Object... arguments) {
    requireNonNull(level, "level must not be null");
    requireNonNull(cause, "cause must not be null");
    requireNonNull(format, "format must not be null");
    if (!log.isEnabledForLevel(level)) {
      return false;
    }
    long now = nanoTime.getAsLong();
    Window window = window(cause, now);
    long since = window.take(now, periodNanos);
    if (since < 0) {
      return false;
    }
    if (since == 0) {
      emit(level, format, arguments);
    } else {
      emit(level, format + " [and {} more like it since the last one]", with(arguments, since));
    }
    return true;
  }

  /** The classic calls, which take a last throwable as the exception. */
  private void emit(Level level, String format, Object[] arguments) {
    switch (level) {
      case ERROR -> log.error(format, arguments);
      case WARN -> log.warn(format, arguments);
      case INFO -> log.info(format, arguments);
      case DEBUG -> log.debug(format, arguments);
      case TRACE -> log.trace(format, arguments);
    }
  }

  private Window window(String cause, long now) {
    Window w = windows.get(cause);
    if (w != null) {
      return w;
    }
    String slot = windows.size() >= MAX_CAUSES ? OVERFLOW : cause;
    return windows.computeIfAbsent(slot, c -> new Window(now, periodNanos));
  }

  /** The arguments with the count added, before a last throwable so that it stays the exception. */
  private static Object[] with(Object[] arguments, long count) {
    Object[] args = arguments == null ? new Object[0] : arguments;
    boolean thrown = args.length > 0 && args[args.length - 1] instanceof Throwable;
    Object[] out = Arrays.copyOf(args, args.length + 1);
    if (thrown) {
      out[args.length - 1] = count;
      out[args.length] = args[args.length - 1];
    } else {
      out[args.length] = count;
    }
    return out;
  }

  /** One cause's last line and the lines counted since. */
  private static final class Window {
    private final AtomicLong last;
    private final AtomicLong skipped = new AtomicLong();

    /** A window whose first line is logged: its last line is one period before now. */
    Window(long now, long period) {
      this.last = new AtomicLong(now - period);
    }

    /**
     * @return -1 when this line is only counted; else the lines counted since the last one (this
     *     line is to be logged)
     */
    long take(long now, long period) {
      long before = last.get();
      if (now - before >= period && last.compareAndSet(before, now)) {
        return skipped.getAndSet(0);
      }
      skipped.incrementAndGet();
      return -1;
    }
  }
}
