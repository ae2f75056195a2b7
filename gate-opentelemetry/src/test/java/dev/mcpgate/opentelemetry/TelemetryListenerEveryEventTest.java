package dev.mcpgate.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.RejectionReason;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every type of event adds one to exactly one counter, whichever type it is. */
class TelemetryListenerEveryEventTest {
  private static final Set<String> COUNTERS =
      Set.of("mcpgate.calls", "mcpgate.attempts.ended", "mcpgate.lease.renewals");

  @ParameterizedTest
  @EnumSource(GateEvent.Type.class)
  void everyEventIsCountedOnce(GateEvent.Type type) {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
            .build()) {
      GateTelemetry.listener(otel, "memory").onEvent(event(type));
      long counted = 0;
      for (MetricData m : reader.collectAllMetrics()) {
        if (COUNTERS.contains(m.getName())) {
          counted +=
              m.getLongSumData().getPoints().stream().mapToLong(LongPointData::getValue).sum();
        }
      }
      assertThat(counted).as("counts of %s", type).isEqualTo(1L);
    }
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
