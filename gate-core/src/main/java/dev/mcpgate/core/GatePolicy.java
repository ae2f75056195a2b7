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
 *     over after a crash (5 s by default). Never longer than retention.
 * @param leaseRenewal how often {@link IdempotencyGate#execute} renews the lease while the action
 *     runs (a quarter of the lease by default, so 1.25 s), on the gate's own renewal path (never
 *     the tools' threads or connection pool): one renewal of all the running actions of a store per
 *     period. Each try has a deadline of a third of what the lease leaves after one period (1.25 s
 *     by default) and a failed or late try is sent again at once, so one fault of the store or of a
 *     connection costs at most a period and two deadlines, less than the lease (the budget in
 *     docs/design.md). What is left is a pause of the whole process, or a store cut off from this
 *     process only, longer than the lease; there the fence holds (docs/operations.md). At most half
 *     the lease. {@link Duration#ZERO} turns renewal off: the lease is then a hard limit on the
 *     action's run time. Shorter than the lease.
 * @param inFlightWait how long {@link IdempotencyGate#execute} waits on a call that another attempt
 *     is running, for its result, before refusing with retry-after (5 s by default; zero refuses at
 *     once)
 * @param failureMode what a failure result (see {@link ResultMapper#isFailure}) does to the claim
 * @param maxResultBytes the largest encoded result that is stored (256 KiB by default); a larger
 *     one is refused at completion without freeing the key
 * @param ignoredArguments top-level argument names left out of the argument hash (the key argument,
 *     a client's trace id); narrowing the hash is always explicit
 * @param outcomeUnknownWhen which exceptions of the action, or of their causes, mean "the effect
 *     may or may not have happened", besides {@link OutcomeUnknownException} and the others that
 *     always do ({@link #isOutcomeUnknown}); those fence the key as unknown instead of releasing it
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
    checkLong(retention, "retention");
    checkLong(lease, "lease");
    Checks.notNegative(leaseRenewal, "leaseRenewal");
    checkInFlightWait(inFlightWait);
    checkLong(unknownFence, "unknownFence");
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

  /** Checks a retention, lease or unknown fence: at least 1 ms, at most {@link #MAX_DURATION}. */
  static Duration checkLong(Duration value, String name) {
    return atMost(Checks.positiveMillis(value, name), MAX_DURATION, name);
  }

  /** Checks an in-flight wait: zero up to {@link #MAX_IN_FLIGHT_WAIT}. */
  static Duration checkInFlightWait(Duration value) {
    return atMost(Checks.notNegative(value, "inFlightWait"), MAX_IN_FLIGHT_WAIT, "inFlightWait");
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

  static int checkMaxResultBytes(int maxResultBytes) {
    if (maxResultBytes < 1) {
      throw new IllegalArgumentException(
          "maxResultBytes must be at least 1, was " + maxResultBytes);
    }
    return maxResultBytes;
  }

  static Set<String> checkIgnoredArguments(Set<String> names) {
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
   * @return the default policy: 24 h retention, a 5 s lease renewed every 1.25 s, 5 s in-flight
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
   * The one place where settings are resolved: this policy, with each value {@code settings} sets
   * (the ones it leaves null are inherited from this policy) and its ignored arguments added to
   * this policy's. A lease renewal and an unknown fence that only followed the lease and the
   * retention follow the new ones. A tool's settings ({@code ToolPolicy} in the MCP adapter, its
   * {@code @Idempotent} annotation) and the Spring Boot properties are resolved here.
   *
   * @param settings the values to set; {@link GateSettings#inherited()} gives this policy back
   * @return the resolved policy
   * @throws IllegalArgumentException when the result breaks a rule between two values (a lease
   *     longer than the retention, a renewal more than half the lease), naming both
   */
  public GatePolicy with(GateSettings settings) {
    notNull(settings, "settings");
    Builder b = toBuilder();
    if (settings.retention() != null) {
      b.retention(settings.retention());
    }
    if (settings.lease() != null) {
      b.lease(settings.lease());
    }
    if (settings.leaseRenewal() != null) {
      b.leaseRenewal(settings.leaseRenewal());
    }
    if (settings.inFlightWait() != null) {
      b.inFlightWait(settings.inFlightWait());
    }
    if (settings.failureMode() != null) {
      b.failureMode(settings.failureMode());
    }
    if (settings.maxResultBytes() != null) {
      b.maxResultBytes(settings.maxResultBytes());
    }
    if (settings.unknownFence() != null) {
      b.unknownFence(settings.unknownFence());
    }
    if (!settings.ignoredArguments().isEmpty()) {
      Set<String> ignored = new java.util.HashSet<>(ignoredArguments);
      ignored.addAll(settings.ignoredArguments());
      b.ignoredArguments(ignored);
    }
    return b.build();
  }

  /**
   * @return true when the action's exception, one of its causes (a framework's wrapper, a checked
   *     exception carried in an unchecked one) or an error of a Reactor or Mutiny composite means
   *     its outcome is unknown (each is read once, for a chain that loops; more than 64 to read
   *     count as unknown): the policy's {@code outcomeUnknownWhen} says so, or throws; it is an
   *     interrupt or a cancellation ({@link InterruptedException}, {@link
   *     java.io.InterruptedIOException} such as a read timeout, {@link
   *     java.nio.channels.ClosedByInterruptException}, {@link
   *     java.util.concurrent.CancellationException}, the Quarkus MCP server's {@code
   *     OperationCancellationException}); a timeout while waiting for an answer ({@link
   *     java.util.concurrent.TimeoutException}, the JDK HttpClient's {@code HttpTimeoutException}
   *     but for its connect timeout, Mutiny's {@code TimeoutException}, Netty's read and write
   *     timeouts); a transaction's commit that failed and so may have been carried out (Spring's
   *     {@code TransactionSystemException} and {@code HeuristicCompletionException}, JTA's {@code
   *     RollbackException}, {@code HeuristicMixedException} and {@code SystemException}); the JVM's
   *     own failure ({@link VirtualMachineError}: out of memory or stack); or, where a gate's own
   *     answer thrown by {@link GateResult#orThrow()} (a nested gate) stands, that answer says
   *     something may have taken effect (its causes are not read)
   */
  public boolean isOutcomeUnknown(Throwable failure) {
    return UnknownOutcomes.in(failure, outcomeUnknownWhen);
  }

  /** A mutable builder; {@link #build()} checks every value and names the bad one. */
  public static final class Builder {
    private Duration retention = Duration.ofHours(24);
    private Duration lease = Duration.ofSeconds(5);
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
      this.retention = checkLong(retention, "retention");
      return this;
    }

    /**
     * @param fence how long a key whose outcome is unknown stays fenced when no reconciler or
     *     operator settles it; at least 1 ms, at most {@link GatePolicy#MAX_DURATION}. The
     *     retention by default.
     */
    public Builder unknownFence(Duration fence) {
      this.unknownFence = checkLong(fence, "unknownFence");
      return this;
    }

    /**
     * @param lease how long an attempt holds the key unless renewed; at least 1 ms, at most
     *     retention. Unless {@link #leaseRenewal} is set, renewal follows it (a quarter of it).
     */
    public Builder lease(Duration lease) {
      this.lease = checkLong(lease, "lease");
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
      this.inFlightWait = checkInFlightWait(inFlightWait);
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
     * @param predicate which exceptions mean the action's outcome is unknown, besides {@link
     *     OutcomeUnknownException} and the others that always do
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
