package dev.mcpgate.core;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.internal.Checks;
import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;

/**
 * How a gate treats the calls of one tool. Immutable; build one with {@link #builder()} or start
 * from {@link #defaults()}.
 *
 * @param retention how long a completed result is replayed (24 h by default; shorter for mail)
 * @param lease how long one attempt holds the key unless renewed, and so how soon another may take
 *     over after a crash (2 s by default). Never longer than retention.
 * @param leaseRenewal how often {@link IdempotencyGate#execute} renews the lease while the action
 *     runs (a quarter of the lease by default, so 500 ms), on the gate's own renewal thread (never
 *     the tools' threads or connection pool): one renewal of all the running actions of a store per
 *     period. A live action is not taken over however long it runs; the one exception is a pause of
 *     the whole process (a stop-the-world pause, a suspended VM) longer than the lease, and there
 *     the fence holds (docs/operations.md). At most half the lease. {@link Duration#ZERO} turns
 *     renewal off: the lease is then a hard limit on the action's run time. Shorter than the lease.
 * @param inFlightWait how long {@link IdempotencyGate#execute} waits on a call that another attempt
 *     is running, for its result, before refusing with retry-after (5 s by default; zero refuses at
 *     once)
 * @param failureMode what a failure result (see {@link ResultMapper#isFailure}) does to the claim
 * @param maxResultBytes the largest encoded result that is stored (256 KiB by default); a larger
 *     one is refused at completion without freeing the key
 * @param ignoredArguments top-level argument names left out of the argument hash (the key argument,
 *     a client's trace id); narrowing the hash is always explicit
 * @param outcomeUnknownWhen which exceptions of the action mean "the effect may or may not have
 *     happened" (by default: {@link OutcomeUnknownException} and its subclasses); those fence the
 *     key as unknown instead of releasing it
 * @param reconciler asked first when a retry finds the key fenced as unknown; null (the default)
 *     leaves the key fenced for {@code unknownFence}, or until an operator settles it ({@link
 *     IdempotencyGate#resolveUnknown})
 * @param unknownFence how long a key whose outcome is unknown stays fenced when nobody settles it
 *     (the retention by default). No lease running out frees it: only this time, the reconciler's
 *     verdict or an operator's.
 */
public record GatePolicy(
    Duration retention,
    Duration lease,
    Duration leaseRenewal,
    Duration inFlightWait,
    FailureMode failureMode,
    int maxResultBytes,
    Set<String> ignoredArguments,
    Predicate<Throwable> outcomeUnknownWhen,
    Reconciler reconciler,
    Duration unknownFence) {

  /**
   * The longest retention, lease and unknown fence a policy takes: 3,660 days (ten years and then
   * some). Longer ones are refused with the value named, so that no store's time arithmetic (epoch
   * milliseconds plus a duration) can overflow.
   */
  public static final Duration MAX_DURATION = Duration.ofDays(3660);

  /** The longest in-flight wait a policy takes: one hour. */
  public static final Duration MAX_IN_FLIGHT_WAIT = Duration.ofHours(1);

  /** What a failure result does to the claim. */
  public enum FailureMode {
    /** Release the claim, so that a retry runs the action again (the default). */
    RELEASE,
    /** Store the failure and replay it to retries (for deterministic business errors). */
    STORE
  }

  private static final GatePolicy DEFAULTS = builder().build();

  /**
   * @throws IllegalArgumentException naming the component that is out of range
   * @throws NullPointerException naming the component that is null
   */
  public GatePolicy {
    atMost(Checks.positiveMillis(retention, "retention"), MAX_DURATION, "retention");
    atMost(Checks.positiveMillis(lease, "lease"), MAX_DURATION, "lease");
    Checks.notNegative(leaseRenewal, "leaseRenewal");
    atMost(Checks.notNegative(inFlightWait, "inFlightWait"), MAX_IN_FLIGHT_WAIT, "inFlightWait");
    atMost(Checks.positiveMillis(unknownFence, "unknownFence"), MAX_DURATION, "unknownFence");
    notNull(failureMode, "failureMode");
    checkMaxResultBytes(maxResultBytes);
    ignoredArguments = checkIgnoredArguments(ignoredArguments);
    notNull(outcomeUnknownWhen, "outcomeUnknownWhen");
    if (lease.compareTo(retention) > 0) {
      throw new IllegalArgumentException(
          "lease (" + lease + ") must not be longer than retention (" + retention + ")");
    }
    if (!leaseRenewal.isZero() && leaseRenewal.multipliedBy(2).compareTo(lease) > 0) {
      throw new IllegalArgumentException(
          "leaseRenewal ("
              + leaseRenewal
              + ") must be at most"
              + " half the lease ("
              + lease
              + "), so that a renewal late by a period still comes"
              + " before the lease runs out; or zero for no renewal");
    }
  }

  private static Duration atMost(Duration value, Duration max, String name) {
    if (value.compareTo(max) > 0) {
      throw new IllegalArgumentException(name + " must be at most " + max + ", was " + value);
    }
    return value;
  }

  private static Duration defaultRenewal(Duration lease) {
    return lease.toMillis() >= 4 ? Duration.ofMillis(lease.toMillis() / 4) : Duration.ZERO;
  }

  /**
   * @return true when the gate renews the lease of a running action
   */
  public boolean renewsLease() {
    return !leaseRenewal.isZero();
  }

  private static int checkMaxResultBytes(int maxResultBytes) {
    if (maxResultBytes < 1) {
      throw new IllegalArgumentException(
          "maxResultBytes must be at least 1, was " + maxResultBytes);
    }
    return maxResultBytes;
  }

  private static Set<String> checkIgnoredArguments(Set<String> names) {
    notNull(names, "ignoredArguments");
    for (String name : names) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException(
            "ignoredArguments must not contain null or empty names," + " was " + names);
      }
    }
    return Set.copyOf(names);
  }

  /**
   * @return the default policy: 24 h retention, a 2 s lease renewed every 500 ms, 5 s in-flight
   *     wait, release on failure, 256 KiB results
   */
  public static GatePolicy defaults() {
    return DEFAULTS;
  }

  /**
   * @return a builder with the default values
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @return a builder that starts from this policy's values
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.retention = retention;
    b.lease = lease;
    // a renewal that only followed the lease follows a new lease too
    b.leaseRenewal = leaseRenewal.equals(defaultRenewal(lease)) ? null : leaseRenewal;
    b.inFlightWait = inFlightWait;
    b.failureMode = failureMode;
    b.maxResultBytes = maxResultBytes;
    b.ignoredArguments = ignoredArguments;
    b.outcomeUnknownWhen = outcomeUnknownWhen;
    b.reconciler = reconciler;
    // a fence that only followed the retention follows a new retention too
    b.unknownFence = unknownFence.equals(retention) ? null : unknownFence;
    return b;
  }

  /**
   * @return true when the action's exception means its outcome is unknown
   */
  public boolean isOutcomeUnknown(Throwable failure) {
    return outcomeUnknownWhen.test(failure);
  }

  /** A mutable builder; {@link #build()} checks every value and names the bad one. */
  public static final class Builder {
    private Duration retention = Duration.ofHours(24);
    private Duration lease = Duration.ofSeconds(2);
    private Duration leaseRenewal; // null: a quarter of the lease
    private Duration inFlightWait = Duration.ofSeconds(5);
    private FailureMode failureMode = FailureMode.RELEASE;
    private int maxResultBytes = 256 * 1024;
    private Set<String> ignoredArguments = Set.of();
    private Predicate<Throwable> outcomeUnknownWhen = t -> t instanceof OutcomeUnknownException;
    private Reconciler reconciler;
    private Duration unknownFence; // null: the retention

    private Builder() {}

    /**
     * @param retention how long a completed result is replayed; at least 1 ms, at most {@link
     *     GatePolicy#MAX_DURATION}
     */
    public Builder retention(Duration retention) {
      this.retention =
          atMost(Checks.positiveMillis(retention, "retention"), MAX_DURATION, "retention");
      return this;
    }

    /**
     * @param fence how long a key whose outcome is unknown stays fenced when no reconciler or
     *     operator settles it; at least 1 ms, at most {@link GatePolicy#MAX_DURATION}. The
     *     retention by default.
     */
    public Builder unknownFence(Duration fence) {
      this.unknownFence =
          atMost(Checks.positiveMillis(fence, "unknownFence"), MAX_DURATION, "unknownFence");
      return this;
    }

    /**
     * @param lease how long an attempt holds the key unless renewed; at least 1 ms, at most
     *     retention. Unless {@link #leaseRenewal} is set, renewal follows it (a quarter of it).
     */
    public Builder lease(Duration lease) {
      this.lease = atMost(Checks.positiveMillis(lease, "lease"), MAX_DURATION, "lease");
      return this;
    }

    /**
     * @param every how often a running action's lease is renewed: at most half the lease, or {@link
     *     Duration#ZERO} for never (the lease then bounds the action's run time)
     */
    public Builder leaseRenewal(Duration every) {
      this.leaseRenewal = Checks.notNegative(every, "leaseRenewal");
      return this;
    }

    /**
     * @param inFlightWait how long to wait on another attempt; zero (refuse at once, as SEP-3182
     *     asks) up to {@link GatePolicy#MAX_IN_FLIGHT_WAIT}
     */
    public Builder inFlightWait(Duration inFlightWait) {
      this.inFlightWait =
          atMost(
              Checks.notNegative(inFlightWait, "inFlightWait"), MAX_IN_FLIGHT_WAIT, "inFlightWait");
      return this;
    }

    /**
     * @param failureMode what a failure result does to the claim
     */
    public Builder failureMode(FailureMode failureMode) {
      this.failureMode = notNull(failureMode, "failureMode");
      return this;
    }

    /**
     * @param maxResultBytes the largest encoded result stored; at least 1
     */
    public Builder maxResultBytes(int maxResultBytes) {
      this.maxResultBytes = checkMaxResultBytes(maxResultBytes);
      return this;
    }

    /**
     * @param names top-level argument names left out of the argument hash; none null or empty
     */
    public Builder ignoredArguments(Set<String> names) {
      this.ignoredArguments = checkIgnoredArguments(names);
      return this;
    }

    /**
     * @param predicate which exceptions mean the action's outcome is unknown
     */
    public Builder outcomeUnknownWhen(Predicate<Throwable> predicate) {
      this.outcomeUnknownWhen = notNull(predicate, "predicate");
      return this;
    }

    /**
     * @param reconciler decides unknown outcomes that retries find (none by default)
     */
    public Builder reconciler(Reconciler reconciler) {
      this.reconciler = notNull(reconciler, "reconciler");
      return this;
    }

    /**
     * @return the policy
     * @throws IllegalArgumentException if the lease is longer than the retention, or the renewal
     *     not shorter than the lease
     */
    public GatePolicy build() {
      Duration renewal = leaseRenewal != null ? leaseRenewal : defaultRenewal(lease);
      return new GatePolicy(
          retention,
          lease,
          renewal,
          inFlightWait,
          failureMode,
          maxResultBytes,
          ignoredArguments,
          outcomeUnknownWhen,
          reconciler,
          unknownFence != null ? unknownFence : retention);
    }
  }
}
