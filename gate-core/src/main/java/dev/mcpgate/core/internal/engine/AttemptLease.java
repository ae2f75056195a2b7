package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.ClaimOutcome;
import java.time.Duration;

/**
 * The {@link ClaimContext.Lease} of a running attempt: what its renewal knows of the lease, and an
 * extension on request through the token-checked {@link ClaimSteps#extendLease}, which marks the
 * lease lost when it is refused.
 */
final class AttemptLease implements ClaimContext.Lease {
  private final ClaimSteps steps;
  private final ClaimOutcome.Acquired claim;
  private final Renewal renewal;

  private AttemptLease(ClaimSteps steps, ClaimOutcome.Acquired claim, Renewal renewal) {
    this.steps = steps;
    this.claim = claim;
    this.renewal = renewal;
  }

  /**
   * @return the context of an action that runs under {@code claim}, whose lease {@code renewal}
   *     keeps and {@code steps} extends
   */
  static ClaimContext context(ClaimSteps steps, ClaimOutcome.Acquired claim, Renewal renewal) {
    return new ClaimContext(claim, new AttemptLease(steps, claim, renewal));
  }

  @Override
  public boolean isLost() {
    return renewal.isLost();
  }

  @Override
  public boolean mayBeLost() {
    return renewal.mayBeLost();
  }

  @Override
  public boolean isFenced() {
    return renewal.isFenced();
  }

  @Override
  public boolean extend(Duration lease) {
    boolean held = steps.extendLease(claim, lease);
    if (!held) {
      renewal.markLost();
    }
    return held;
  }
}
