package dev.mcpgate.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review: a call whose claim was acquired but whose action never started (the unit of work could
 * not begin: a pool exhausted) is told to the caller as STORE_UNAVAILABLE, executed: no. The span
 * says {@code mcpgate.ran=true}, {@code mcpgate.decision=executed}, and {@code mcpgate.calls}
 * counts it as executed.
 */
class SpanRanTruthReviewTest {

  @Test
  void aCallWhoseActionNeverStartedIsNotMarkedAsRan() {
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    try (OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build()) {
      IdempotencyGate gate =
          IdempotencyGate.builder(InMemoryIdempotencyStore.create())
              .listener(GateTelemetry.listener(otel, "memory"))
              .build();
      AtomicInteger effects = new AtomicInteger();
      Span span = otel.getTracer("test").spanBuilder("tools/call refund_order").startSpan();
      GateResult<String> result;
      try (Scope s = span.makeCurrent()) {
        result =
            gate.execute(
                ToolCall.of("acme", "refund_order", "k-" + UUID.randomUUID(), Map.of("a", 1)),
                ResultMapper.utf8(),
                new TransactionScope<Object>() {
                  @Override
                  public Object begin() {
                    throw new IllegalStateException("connection pool exhausted (test)");
                  }

                  @Override
                  public boolean complete(
                      Object r, ClaimId id, LeaseToken t, StoredResult x, Duration d) {
                    throw new AssertionError();
                  }

                  @Override
                  public boolean release(Object r, ClaimId id, LeaseToken t) {
                    throw new AssertionError();
                  }

                  @Override
                  public void commit(Object r) {}

                  @Override
                  public void rollback(Object r) {}

                  @Override
                  public void close(Object r) {}
                },
                (r, ctx) -> {
                  effects.incrementAndGet();
                  return "refunded";
                });
      } finally {
        span.end();
      }
      gate.close();
      assertThat(effects).hasValue(0);
      assertThat(((GateResult.Failed<String>) result).reason())
          .isEqualTo(FailureReason.STORE_UNAVAILABLE);
      assertThat(((GateResult.Failed<String>) result).effect()).isEqualTo(GateResult.Effect.NO);

      SpanData data = spans.getFinishedSpanItems().get(0);
      Map<String, Object> told = new HashMap<>();
      told.put("mcpgate.ran", data.getAttributes().get(AttributeKey.booleanKey("mcpgate.ran")));
      told.put(
          "mcpgate.decision", data.getAttributes().get(AttributeKey.stringKey("mcpgate.decision")));
      for (MetricData m : metrics.collectAllMetrics()) {
        if (m.getName().equals("mcpgate.calls")) {
          for (LongPointData p : m.getLongSumData().getPoints()) {
            told.put(
                "calls." + p.getAttributes().get(AttributeKey.stringKey("outcome")), p.getValue());
          }
        }
      }
      assertThat(told)
          .as("the action never started, and the caller was told so")
          .isEqualTo(
              Map.of(
                  "mcpgate.ran",
                  false,
                  "mcpgate.decision",
                  "failed.store_unavailable",
                  "calls.failed.store_unavailable",
                  1L));
    }
  }
}
