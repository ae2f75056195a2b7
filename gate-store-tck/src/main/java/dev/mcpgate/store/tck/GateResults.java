package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;

/**
 * Assertions on what a gate over the store under test answered, for a store's own tests beside the
 * contract: a call that failed, for one reason.
 */
public final class GateResults {
  private GateResults() {}

  /**
   * @param result what the gate answered
   * @param reason the reason it must have failed for
   * @return the failure, for more checks (its message, effect, cause, or {@link
   *     GateResult#orThrow()})
   */
  public static GateResult.Failed<?> failed(GateResult<?> result, FailureReason reason) {
    assertThat(result).isInstanceOf(GateResult.Failed.class);
    GateResult.Failed<?> failed = (GateResult.Failed<?>) result;
    assertThat(failed.reason()).as(failed.message()).isEqualTo(reason);
    return failed;
  }
}
