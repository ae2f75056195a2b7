package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import java.time.Duration;

/**
 * What a running action can know and do about the claim it runs under.
 */
public final class ClaimContext {
  private final IdempotencyGate gate;
  private final ClaimOutcome.Acquired claim;
  private final LeaseKeeper.Renewal renewal;

  ClaimContext(IdempotencyGate gate, ClaimOutcome.Acquired claim, LeaseKeeper.Renewal renewal) {
    this.gate = gate;
    this.claim = claim;
    this.renewal = renewal;
  }

  /** @return the claim: its id, token, attempt and lease */
  public ClaimOutcome.Acquired claim() {
    return claim;
  }

  /** @return (tenant, tool, key) */
  public ClaimId id() {
    return claim.id();
  }

  /**
   * @return a stable key derived from (tenant, tool, key), the same on every attempt: forward it
   *     to downstream systems that deduplicate (a payment provider, a mailer)
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

  /** @return 1 for a first attempt, more after takeovers */
  public int attempt() {
    return claim.attempt();
  }

  /**
   * @return true once the gate's automatic renewal found that another attempt took the key over
   *     (this attempt's lease ran out unrenewed, for example while the store was unreachable):
   *     this attempt's result will not be stored, so a long action should stop at its next safe
   *     point. Always false when the policy turns renewal off.
   */
  public boolean isLeaseLost() {
    return renewal.isLost();
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
