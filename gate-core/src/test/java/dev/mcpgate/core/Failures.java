package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

/** Asserts that a call failed for one reason, and hands the failure on for more checks. */
final class Failures {
  private Failures() {}

  static GateResult.Failed<?> failed(GateResult<?> result, FailureReason reason) {
    assertThat(result).isInstanceOf(GateResult.Failed.class);
    GateResult.Failed<?> failed = (GateResult.Failed<?>) result;
    assertThat(failed.reason()).as(failed.message()).isEqualTo(reason);
    return failed;
  }
}
