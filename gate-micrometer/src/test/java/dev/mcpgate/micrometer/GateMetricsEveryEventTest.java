package dev.mcpgate.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.RejectionReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every type of event adds one to exactly one counter, whichever type it is. */
class GateMetricsEveryEventTest {

  @ParameterizedTest
  @EnumSource(GateEvent.Type.class)
  void everyEventIsCountedOnce(GateEvent.Type type) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    GateMetrics.of(meters, "memory").onEvent(event(type));
    double counted =
        meters.find("mcpgate.calls").counters().stream().mapToDouble(Counter::count).sum();
    counted +=
        meters.find("mcpgate.attempts.ended").counters().stream().mapToDouble(Counter::count).sum();
    counted +=
        meters.find("mcpgate.lease.renewals").counters().stream().mapToDouble(Counter::count).sum();
    assertThat(counted).as("counts of %s", type).isEqualTo(1.0);
  }

  private static GateEvent event(GateEvent.Type type) {
    return new GateEvent(
        type,
        type == GateEvent.Type.REJECTED ? null : new ClaimId("acme", "refund_order", "k-1"),
        1,
        null,
        type == GateEvent.Type.REFUSED ? RefusalReason.CONFLICT : null,
        "message",
        null,
        Instant.EPOCH,
        null,
        Duration.ZERO,
        "refund_order",
        type == GateEvent.Type.REJECTED ? RejectionReason.TENANT_UNKNOWN : null,
        type == GateEvent.Type.FAILED ? FailureReason.STORE_UNAVAILABLE : null);
  }
}
