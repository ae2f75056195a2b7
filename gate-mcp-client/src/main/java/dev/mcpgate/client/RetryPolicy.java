package dev.mcpgate.client;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How an intent is retried after a lost answer or a "retry with the same key" refusal: every retry
 * carries the intent's key; the waits grow exponentially with jitter, never shorter than the
 * server's {@code retry_after_ms}; no retry starts after the deadline.
 *
 * @param maxAttempts the most attempts per intent, the first included (at least 1; default 5)
 * @param initialBackoff the wait before the first retry (positive, at most 1 day; default 200 ms)
 * @param maxBackoff the longest wait between attempts (at least {@code initialBackoff}, at most 1
 *     day; default 5 s), unless the server asks for a longer one
 * @param multiplier how much each wait grows (at least 1; default 2)
 * @param jitter the share of each wait taken off at random, from 0 (none) to 1 (all; default 0.2),
 *     so that clients that failed together do not retry together
 * @param deadline how long after the first attempt a retry may still start (positive, at most 30
 *     days; default 60 s). An attempt's own time limit is the SDK client's {@code requestTimeout}.
 */
public record RetryPolicy(
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff,
    double multiplier,
    double jitter,
    Duration deadline) {

  /**
   * The longest {@code initialBackoff} or {@code maxBackoff} accepted: {@value #MAX_BACKOFF_DAYS}
   * day.
   */
  private static final long MAX_BACKOFF_DAYS = 1;

  /** The longest {@code deadline} accepted: {@value #MAX_DEADLINE_DAYS} days. */
  private static final long MAX_DEADLINE_DAYS = 30;

  /**
   * @throws NullPointerException if a duration is null
   * @throws IllegalArgumentException if a value is out of its range; the message names it
   */
  public RetryPolicy {
    checkAttempts(maxAttempts);
    checkBackoff(initialBackoff, "initialBackoff");
    checkBackoff(maxBackoff, "maxBackoff");
    checkMultiplier(multiplier);
    checkJitter(jitter);
    checkDeadline(deadline);
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "maxBackoff must be at least initialBackoff (" + initialBackoff + "), was " + maxBackoff);
    }
  }

  /**
   * @return 5 attempts, waits from 200 ms doubling up to 5 s with 20 % jitter, a 60 s deadline
   */
  public static RetryPolicy defaults() {
    return builder().build();
  }

  /**
   * @return a builder with the default values
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @param retriesDone how many retries came before this one (0 for the first retry)
   * @param random a number in [0, 1) that decides the jitter
   * @return the wait before the next retry, before the server's {@code retry_after_ms} is applied
   */
  Duration backoff(int retriesDone, double random) {
    double nanos = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, retriesDone));
    double capped = Math.min(nanos, maxBackoff.toNanos());
    return Duration.ofNanos((long) (capped * (1 - jitter * random)));
  }

  private static void checkAttempts(int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
  }

  private static void checkBackoff(Duration value, String name) {
    checkRange(value, name, Duration.ofDays(MAX_BACKOFF_DAYS), "1 day");
  }

  private static void checkDeadline(Duration value) {
    checkRange(value, "deadline", Duration.ofDays(MAX_DEADLINE_DAYS), "30 days");
  }

  private static void checkRange(Duration value, String name, Duration max, String maxWords) {
    requireNonNull(value, name + " must not be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    if (value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          name + " must be at most " + maxWords + " (" + max + "), was " + value);
    }
  }

  private static void checkMultiplier(double multiplier) {
    if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException(
          "multiplier must be a finite number of at least 1, was " + multiplier);
    }
  }

  private static void checkJitter(double jitter) {
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("jitter must be from 0 to 1, was " + jitter);
    }
  }

  /** Builds a {@link RetryPolicy}; each setter checks its value and names it when it refuses. */
  public static final class Builder {
    private int maxAttempts = 5;
    private Duration initialBackoff = Duration.ofMillis(200);
    private Duration maxBackoff = Duration.ofSeconds(5);
    private double multiplier = 2;
    private double jitter = 0.2;
    private Duration deadline = Duration.ofSeconds(60);

    private Builder() {}

    /**
     * @param maxAttempts the most attempts per intent, the first included
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxAttempts(int maxAttempts) {
      checkAttempts(maxAttempts);
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * @param initialBackoff the wait before the first retry
     * @return this builder
     * @throws NullPointerException if null
     * @throws IllegalArgumentException if zero, negative or longer than 1 day
     */
    public Builder initialBackoff(Duration initialBackoff) {
      checkBackoff(initialBackoff, "initialBackoff");
      this.initialBackoff = initialBackoff;
      return this;
    }

    /**
     * @param maxBackoff the longest wait between attempts (checked against {@code initialBackoff}
     *     by {@link #build()})
     * @return this builder
     * @throws NullPointerException if null
     * @throws IllegalArgumentException if zero, negative or longer than 1 day
     */
    public Builder maxBackoff(Duration maxBackoff) {
      checkBackoff(maxBackoff, "maxBackoff");
      this.maxBackoff = maxBackoff;
      return this;
    }

    /**
     * @param multiplier how much each wait grows
     * @return this builder
     * @throws IllegalArgumentException if below 1, infinite or NaN
     */
    public Builder multiplier(double multiplier) {
      checkMultiplier(multiplier);
      this.multiplier = multiplier;
      return this;
    }

    /**
     * @param jitter the share of each wait taken off at random
     * @return this builder
     * @throws IllegalArgumentException if not from 0 to 1
     */
    public Builder jitter(double jitter) {
      checkJitter(jitter);
      this.jitter = jitter;
      return this;
    }

    /**
     * @param deadline how long after the first attempt a retry may still start
     * @return this builder
     * @throws NullPointerException if null
     * @throws IllegalArgumentException if zero, negative or longer than 30 days
     */
    public Builder deadline(Duration deadline) {
      checkDeadline(deadline);
      this.deadline = deadline;
      return this;
    }

    /**
     * @return the policy
     * @throws IllegalArgumentException if {@code maxBackoff} is shorter than {@code initialBackoff}
     */
    public RetryPolicy build() {
      return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, multiplier, jitter, deadline);
    }
  }
}
