package dev.mcpgate.core;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.internal.Checks;
import java.time.Duration;
import java.util.Set;

/**
 * The gate's values one scope sets, each either set or inherited (null) from the scope around it:
 * what one tool changes of its gate's {@link GatePolicy} (the MCP adapter's {@code ToolPolicy} and
 * {@code @Idempotent}), and what the Spring Boot properties change of the defaults. This is the one
 * type that lists them; {@link GatePolicy#with(GateSettings)} is the one place they are resolved.
 * Each value means what the {@link GatePolicy} component of the same name means, and is checked as
 * it is when set; rules between two values (a lease longer than the retention) are checked when
 * resolved, since one of the two may be inherited.
 *
 * <pre>{@code
 * GateSettings mail = GateSettings.builder().retention(Duration.ofHours(2)).build();
 * GatePolicy forMail = gate.policy().with(mail);
 * }</pre>
 *
 * @param retention see {@link GatePolicy#retention()}; null inherits it
 * @param lease see {@link GatePolicy#lease()}; null inherits it
 * @param leaseRenewal see {@link GatePolicy#leaseRenewal()}; null inherits it (a renewal that
 *     followed the inherited lease follows a lease set here)
 * @param inFlightWait see {@link GatePolicy#inFlightWait()}; null inherits it
 * @param failureMode see {@link GatePolicy#failureMode()}; null inherits it
 * @param maxResultBytes see {@link GatePolicy#maxResultBytes()}; null inherits it
 * @param ignoredArguments argument names left out of the argument hash in addition to the inherited
 *     ones (a scope can narrow the hash, never widen it back); empty adds none
 * @param unknownFence see {@link GatePolicy#unknownFence()}; null inherits it (a fence that
 *     followed the inherited retention follows a retention set here)
 */
public record GateSettings(
    Duration retention,
    Duration lease,
    Duration leaseRenewal,
    Duration inFlightWait,
    GatePolicy.FailureMode failureMode,
    Integer maxResultBytes,
    Set<String> ignoredArguments,
    Duration unknownFence) {

  private static final GateSettings INHERITED = builder().build();

  /**
   * @throws IllegalArgumentException naming the component that is out of range
   */
  public GateSettings {
    if (retention != null) {
      GatePolicy.checkLong(retention, "retention");
    }
    if (lease != null) {
      GatePolicy.checkLong(lease, "lease");
    }
    if (leaseRenewal != null) {
      Checks.notNegative(leaseRenewal, "leaseRenewal");
    }
    if (inFlightWait != null) {
      GatePolicy.checkInFlightWait(inFlightWait);
    }
    if (maxResultBytes != null) {
      GatePolicy.checkMaxResultBytes(maxResultBytes);
    }
    ignoredArguments =
        ignoredArguments == null ? Set.of() : GatePolicy.checkIgnoredArguments(ignoredArguments);
    if (unknownFence != null) {
      GatePolicy.checkLong(unknownFence, "unknownFence");
    }
  }

  /**
   * @return settings that set nothing: every value inherited
   */
  public static GateSettings inherited() {
    return INHERITED;
  }

  /**
   * @return a builder that sets nothing yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @return a builder that starts from these settings
   */
  public Builder toBuilder() {
    return new Builder().settings(this);
  }

  /** A mutable builder; each setter checks its value and names it when it is wrong. */
  public static final class Builder extends Setters<Builder> {
    private Builder() {}

    /**
     * @return the settings
     */
    public GateSettings build() {
      return settingsSet();
    }
  }

  /**
   * The one setter of each value, for {@link Builder} and for the builder of any scope that carries
   * settings (the MCP adapter's {@code ToolPolicy.Builder} extends it), so that a setting is
   * declared here once and every builder has it.
   *
   * @param <B> the extending builder, returned by each setter
   */
  public abstract static class Setters<B extends Setters<B>> {
    private Duration retention;
    private Duration lease;
    private Duration leaseRenewal;
    private Duration inFlightWait;
    private GatePolicy.FailureMode failureMode;
    private Integer maxResultBytes;
    private Set<String> ignoredArguments = Set.of();
    private Duration unknownFence;

    /** For the extending builder. */
    protected Setters() {}

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }

    /**
     * @param settings the values to set, every one (an inherited one as inherited)
     */
    public B settings(GateSettings settings) {
      notNull(settings, "settings");
      retention = settings.retention;
      lease = settings.lease;
      leaseRenewal = settings.leaseRenewal;
      inFlightWait = settings.inFlightWait;
      failureMode = settings.failureMode;
      maxResultBytes = settings.maxResultBytes;
      ignoredArguments = settings.ignoredArguments;
      unknownFence = settings.unknownFence;
      return self();
    }

    /**
     * @param retention how long a completed result is replayed ({@link GatePolicy#retention()})
     */
    public B retention(Duration retention) {
      this.retention = GatePolicy.checkLong(retention, "retention");
      return self();
    }

    /**
     * @param lease how long an attempt holds the key unless renewed ({@link GatePolicy#lease()})
     */
    public B lease(Duration lease) {
      this.lease = GatePolicy.checkLong(lease, "lease");
      return self();
    }

    /**
     * @param every how often a running action's lease is renewed, or zero for never ({@link
     *     GatePolicy#leaseRenewal()})
     */
    public B leaseRenewal(Duration every) {
      this.leaseRenewal = Checks.notNegative(every, "leaseRenewal");
      return self();
    }

    /**
     * @param inFlightWait how long a duplicate waits on a running attempt ({@link
     *     GatePolicy#inFlightWait()})
     */
    public B inFlightWait(Duration inFlightWait) {
      this.inFlightWait = GatePolicy.checkInFlightWait(inFlightWait);
      return self();
    }

    /**
     * @param failureMode what a failure result does to the claim ({@link GatePolicy#failureMode()})
     */
    public B failureMode(GatePolicy.FailureMode failureMode) {
      this.failureMode = notNull(failureMode, "failureMode");
      return self();
    }

    /**
     * @param maxResultBytes the largest encoded result stored ({@link GatePolicy#maxResultBytes()})
     */
    public B maxResultBytes(int maxResultBytes) {
      this.maxResultBytes = GatePolicy.checkMaxResultBytes(maxResultBytes);
      return self();
    }

    /**
     * @param names argument names left out of the hash in addition to the inherited ones
     */
    public B ignoredArguments(Set<String> names) {
      this.ignoredArguments = GatePolicy.checkIgnoredArguments(names);
      return self();
    }

    /**
     * @param fence how long a key whose outcome is unknown stays fenced ({@link
     *     GatePolicy#unknownFence()})
     */
    public B unknownFence(Duration fence) {
      this.unknownFence = GatePolicy.checkLong(fence, "unknownFence");
      return self();
    }

    /**
     * @return the settings set so far
     */
    protected final GateSettings settingsSet() {
      return new GateSettings(
          retention,
          lease,
          leaseRenewal,
          inFlightWait,
          failureMode,
          maxResultBytes,
          ignoredArguments,
          unknownFence);
    }
  }
}
