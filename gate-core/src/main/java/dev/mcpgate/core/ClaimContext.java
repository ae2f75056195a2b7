package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import java.time.Duration;

/** What a running action can know and do about the claim it runs under. */
public final class ClaimContext {
  private final IdempotencyGate gate;
  private final ClaimOutcome.Acquired claim;
  private final LeaseRenewer.Renewal renewal;

  ClaimContext(IdempotencyGate gate, ClaimOutcome.Acquired claim, LeaseRenewer.Renewal renewal) {
    this.gate = gate;
    this.claim = claim;
    this.renewal = renewal;
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
    return renewal.isLost();
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
    return renewal.mayBeLost();
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
    boolean held = gate.extendLease(claim, Checks.positiveMillis(lease, "lease"));
    if (!held) {
      renewal.markLost();
    }
    return held;
  }
}
