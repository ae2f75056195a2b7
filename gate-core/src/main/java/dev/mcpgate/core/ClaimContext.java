package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import java.time.Duration;

/**
 * What a running action can know and do about the claim it runs under.
 *
 * <p>The gate makes one for each action it runs, over a {@link Lease} that it keeps: renewed on the
 * gate's own thread while the action runs, and extended on request. An action tested on its own can
 * be given one made with {@link #ClaimContext(ClaimOutcome.Acquired, Lease)} over a lease of the
 * test's.
 */
public final class ClaimContext {
  private final ClaimOutcome.Acquired claim;
  private final Lease lease;

  /**
   * @param claim the claim the action runs under
   * @param lease that claim's lease, as whoever runs the action keeps it
   */
  public ClaimContext(ClaimOutcome.Acquired claim, Lease lease) {
    this.claim = Checks.notNull(claim, "claim");
    this.lease = Checks.notNull(lease, "lease");
  }

  /**
   * @return the claim: its id, token, attempt and lease
   */
  public ClaimOutcome.Acquired claim() {
    return claim;
  }

  /**
   * @return (tenant, tool, key)
   */
  public ClaimId id() {
    return claim.id();
  }

  /**
   * @return a stable key derived from (tenant, tool, key), the same on every attempt: forward it to
   *     downstream systems that deduplicate (a payment provider, a mailer)
   */
  public String downstreamKey() {
    return claim.downstreamKey();
  }

  /**
   * @return true when this attempt took over from an earlier one whose lease expired: the earlier
   *     one may have done part of the work, so check downstream with the downstream key
   */
  public boolean isTakeover() {
    return claim.isTakeover();
  }

  /**
   * @return 1 for a first attempt, more after takeovers
   */
  public int attempt() {
    return claim.attempt();
  }

  /**
   * @return true once the gate learned that another attempt took the key over (a renewal was
   *     refused, after this attempt's lease ran out unrenewed): this attempt's result will not be
   *     stored, so a long action should stop at its next safe point
   */
  public boolean isLeaseLost() {
    return lease.isLost();
  }

  /**
   * @return true when another attempt may hold the key now: the lease is lost, or it has run out
   *     (by this process's clock, from the send time of the last claim or renewal the store
   *     confirmed) without a confirmed renewal, for example while the store did not answer or after
   *     a long pause. An action about to do an effect that cannot be undone can check it first; the
   *     fence (the token-checked completion, the downstream key) holds either way. Never true in
   *     single-commit mode, where no other attempt can see the claim.
   */
  public boolean mayHaveLostLease() {
    return lease.mayBeLost();
  }

  /**
   * Whether the gate fenced this attempt's key as unknown once its action ended: the action threw
   * an exception that means its outcome is unknown (see {@link GatePolicy#outcomeUnknownWhen()}),
   * or was interrupted, or ran but its result could not be stored. True as soon as the fence is
   * written, or is being kept for the store to take ({@link GateEvent.Type#STORE_FAILED}): either
   * way no retry runs the action again. False while the action runs, and when the key was released,
   * completed, or found taken over. What the gate itself decided, so a caller (the MCP adapter)
   * need not read the store again to tell.
   *
   * @return true when the key is fenced as unknown by this attempt
   */
  public boolean isFencedAsUnknown() {
    return lease.isFenced();
  }

  /**
   * Extends this attempt's lease to {@code lease} from the store's now. The gate renews the lease
   * by itself while the action runs (see {@link GatePolicy#leaseRenewal()}), and each renewal sets
   * it to the policy's lease again; this is for a policy without renewal.
   *
   * @param lease the new lease, at least 1 ms
   * @return false when the lease was already taken over by another attempt: stop working
   */
  public boolean extendLease(Duration lease) {
    return this.lease.extend(Checks.positiveMillis(lease, "lease"));
  }

  /**
   * The lease of the attempt an action runs under, as the gate keeps it. The gate implements it;
   * implement it only to run an action outside a gate, in a test say.
   */
  public interface Lease {
    /**
     * @return true once another attempt is known to hold the key: a renewal or an extension was
     *     refused
     */
    boolean isLost();

    /**
     * @return true when {@link #isLost()}, or when the lease has run out (by this process's clock)
     *     without a renewal the store confirmed; never true for a lease no other attempt can see
     */
    boolean mayBeLost();

    /**
     * Extends the lease to {@code lease} from the store's now, with a token-checked write; when it
     * is refused, {@link #isLost()} is true from then on.
     *
     * @param lease the new lease, at least 1 ms (checked by {@link ClaimContext#extendLease})
     * @return false when another attempt took the lease over
     * @throws StoreUnavailableException if the store could not be written
     */
    boolean extend(Duration lease);

    /**
     * @return true once the gate fenced the key as unknown after the action ended (see {@link
     *     ClaimContext#isFencedAsUnknown()}); false by default, for a lease outside a gate
     */
    default boolean isFenced() {
      return false;
    }
  }
}
