package dev.mcpgate.core.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.StoreUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a failure decided inside the engine keeps when it becomes the caller's result. */
class CallFailureTest {
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k");

  @Test
  void whatFailedWhileSettlingIsTheCauseWhereNothingElseIs() {
    CallFailure failure = CallFailure.storeUnavailable(null, "the lease was not confirmed", null);
    StoreUnavailableException release = new StoreUnavailableException("release failed", null);
    failure.addSuppressed(release);

    GateResult.Failed<String> result = failure.result(ID, "v1:h", null, Duration.ZERO);

    assertThat(result.cause()).isSameAs(release);
    assertThat(result.attempt()).isZero();
  }

  @Test
  void aFailureAfterWaitingSaysHowLongItWaited() {
    CallFailure failure =
        CallFailure.storeUnavailable(null, "could not claim", null)
            .afterWaiting(Duration.ofMillis(40));

    assertThat(failure.<String>result(ID, "v1:h", null, Duration.ZERO).waited())
        .isEqualTo(Duration.ofMillis(40));
  }
}
