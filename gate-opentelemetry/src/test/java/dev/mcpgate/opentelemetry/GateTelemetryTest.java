package dev.mcpgate.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RejectionReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Real gates over the in-memory store, read back through the SDK's in-memory reader and span
 * exporter: each metric point and span attribute by name and value, and none that holds a tenant, a
 * key, an argument or a token.
 */
class GateTelemetryTest {
  private static final String TENANT = "tenant-7f3a";
  private static final String TOOL = "refund_order";
  private static final String ORDER = "ord_9f2c";
  private static final long AMOUNT = 4711;

  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .build();
  private final Tracer tracer = otel.getTracer("test");

  /** Every event the gates emitted, for the keys and token fingerprints no attribute may hold. */
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();

  private final List<String> keys = new CopyOnWriteArrayList<>();
  private final List<IdempotencyGate> gates = new ArrayList<>();

  @AfterEach
  void noAttributeHoldsATenantKeyArgumentOrToken() {
    gates.forEach(IdempotencyGate::close);
    List<Object> values = new ArrayList<>();
    for (MetricData m : metrics.collectAllMetrics()) {
      for (var p : m.getData().getPoints()) {
        values.addAll(p.getAttributes().asMap().values());
      }
    }
    for (SpanData s : spans.getFinishedSpanItems()) {
      values.addAll(s.getAttributes().asMap().values());
    }
    List<String> secrets = new ArrayList<>(List.of(TENANT, ORDER, String.valueOf(AMOUNT)));
    secrets.addAll(keys);
    events.stream().map(GateEvent::tokenFingerprint).filter(f -> f != null).forEach(secrets::add);
    assertThat(values)
        .allSatisfy(
            v -> {
              assertThat(v).isNotEqualTo(AMOUNT);
              assertThat(String.valueOf(v)).doesNotContain(secrets);
            });
    otel.close();
  }

  private IdempotencyGate gate(IdempotencyStore store, GatePolicy policy) {
    IdempotencyGate gate =
        IdempotencyGate.builder(GateTelemetry.store(store, otel, "memory"))
            .listener(GateTelemetry.listener(otel, "memory"))
            .listener(events::add)
            .policy(policy)
            .build();
    gates.add(gate);
    return gate;
  }

  private IdempotencyGate gate() {
    return gate(
        InMemoryIdempotencyStore.create(),
        GatePolicy.builder().inFlightWait(Duration.ZERO).leaseRenewal(Duration.ZERO).build());
  }

  private ToolCall call(String key, long amount) {
    keys.add(key);
    return ToolCall.of(TENANT, TOOL, key, Map.of("order_id", ORDER, "amount", amount));
  }

  private static Attributes attrs(String... keysAndValues) {
    var b = Attributes.builder();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      b.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return b.build();
  }

  private static Attributes calls(String outcome, String keySource) {
    return attrs("tool", TOOL, "outcome", outcome, "key_source", keySource, "store", "memory");
  }

  private static Attributes ended(String result) {
    return attrs("tool", TOOL, "result", result, "store", "memory");
  }

  private static Attributes operation(String operation, String outcome) {
    return attrs("operation", operation, "outcome", outcome, "store", "memory");
  }

  private Map<String, MetricData> collect() {
    Map<String, MetricData> byName = new HashMap<>();
    Collection<MetricData> all = metrics.collectAllMetrics();
    for (MetricData m : all) {
      assertThat(m.getInstrumentationScopeInfo().getName()).isEqualTo("dev.mcpgate.opentelemetry");
      assertThat(byName.put(m.getName(), m)).isNull();
    }
    return byName;
  }

  /**
   * @return the points of a counter, by attributes
   */
  private static Map<Attributes, Long> counts(Map<String, MetricData> all, String name) {
    MetricData m = all.get(name);
    if (m == null) {
      return Map.of();
    }
    assertThat(m.getType()).isEqualTo(MetricDataType.LONG_SUM);
    assertThat(m.getLongSumData().isMonotonic()).isTrue();
    Map<Attributes, Long> out = new HashMap<>();
    for (LongPointData p : m.getLongSumData().getPoints()) {
      out.put(p.getAttributes(), p.getValue());
    }
    return out;
  }

  /**
   * @return the points of a histogram, by attributes
   */
  private static Map<Attributes, HistogramPointData> histogram(
      Map<String, MetricData> all, String name) {
    MetricData m = all.get(name);
    if (m == null) {
      return Map.of();
    }
    assertThat(m.getType()).isEqualTo(MetricDataType.HISTOGRAM);
    assertThat(m.getUnit()).isEqualTo("s");
    Map<Attributes, HistogramPointData> out = new HashMap<>();
    for (HistogramPointData p : m.getHistogramData().getPoints()) {
      out.put(p.getAttributes(), p);
    }
    return out;
  }

  private static Map<Attributes, Long> histogramCounts(Map<String, MetricData> all, String name) {
    Map<Attributes, Long> out = new HashMap<>();
    histogram(all, name).forEach((a, p) -> out.put(a, p.getCount()));
    return out;
  }

  /** Runs the call inside a span, as an MCP server's instrumentation would, and returns it. */
  @SuppressWarnings("try")
  private SpanData traced(Supplier<?> call) {
    Span span = tracer.spanBuilder("tools/call " + TOOL).startSpan();
    try (Scope scope = span.makeCurrent()) {
      call.get();
    } catch (RuntimeException e) {
      // the gate's failure is the test's to check; the span still ends
    } finally {
      span.end();
    }
    String id = span.getSpanContext().getSpanId();
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getSpanId().equals(id))
        .findFirst()
        .orElseThrow();
  }

  private static Map<AttributeKey<?>, Object> decision(
      String decision, boolean ran, String keySource, Long attempt) {
    Map<AttributeKey<?>, Object> m = new HashMap<>();
    m.put(AttributeKey.stringKey("mcp.method.name"), "tools/call");
    m.put(AttributeKey.stringKey("gen_ai.tool.name"), TOOL);
    m.put(AttributeKey.stringKey("mcpgate.decision"), decision);
    m.put(AttributeKey.booleanKey("mcpgate.ran"), ran);
    m.put(AttributeKey.stringKey("mcpgate.store"), "memory");
    m.put(AttributeKey.stringKey("mcpgate.key_source"), keySource);
    if (attempt != null) {
      m.put(AttributeKey.longKey("mcpgate.attempt"), attempt);
    }
    return m;
  }

  @Test
  void aCallTheStoreCouldNotClaimIsCountedAndTracedAsFailed() {
    IdempotencyGate gate =
        gate(
            new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
              @Override
              public ClaimAttempt claim(ClaimRequest request) {
                throw new StoreUnavailableException("connection refused (test)", null);
              }
            },
            GatePolicy.defaults());

    SpanData span =
        traced(() -> gate.execute(call("key-down", 5), ResultMapper.utf8(), ctx -> "never"));

    assertThat(counts(collect(), "mcpgate.calls"))
        .isEqualTo(Map.of(calls("failed.store_unavailable", "none"), 1L));
    assertThat(span.getAttributes().asMap())
        .containsAllEntriesOf(decision("failed.store_unavailable", false, "none", null));
  }

  @Test
  void callsAndEndedAttemptsAreCountedByToolOutcomeAndKeySource() {
    IdempotencyGate gate = gate();
    gate.execute(call("key-a1", 5), ResultMapper.utf8(), ctx -> "refund");
    gate.execute(call("key-a1", 5), ResultMapper.utf8(), ctx -> "again");
    gate.execute(call("key-a1", 6), ResultMapper.utf8(), ctx -> "other");
    gate.claim(call("key-b2", 5).withKeySource("meta"));
    gate.execute(call("key-b2", 5), ResultMapper.utf8(), ctx -> "held");
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("key-c3", 5),
                        ResultMapper.utf8(),
                        ctx -> {
                          throw new IllegalStateException("declined");
                        })
                    .orThrow())
        .hasMessage("declined");

    Map<String, MetricData> all = collect();
    assertThat(counts(all, "mcpgate.calls"))
        .isEqualTo(
            Map.of(
                calls("executed", "none"), 2L, // key-a1, key-c3
                calls("executed", "meta"), 1L, // the key-b2 claim
                calls("replayed", "none"), 1L,
                calls("refused.conflict", "none"), 1L,
                calls("refused.in_progress", "none"), 1L));
    assertThat(counts(all, "mcpgate.attempts.ended"))
        .isEqualTo(
            Map.of(
                ended("completed"), 1L,
                ended("released"), 1L));
    assertThat(all.get("mcpgate.calls").getUnit()).isEqualTo("{call}");
    assertThat(all).doesNotContainKeys("mcpgate.lease.renewals", "mcpgate.inflight.wait");
    assertThat(histogramCounts(all, "mcpgate.store.operations"))
        .isEqualTo(
            Map.of(
                operation("claim", "success"), 6L,
                operation("complete", "success"), 1L,
                operation("release", "success"), 1L));
    assertThat(
            histogram(all, "mcpgate.store.operations")
                .get(operation("claim", "success"))
                .getBoundaries())
        .isEqualTo(Instruments.SECONDS_BUCKETS);
  }

  @Test
  void theCurrentSpanLearnsWhatTheGateDecidedAndNoSpanIsAdded() {
    IdempotencyGate gate = gate();
    SpanData executed =
        traced(
            () ->
                gate.execute(
                    call("key-a1", 5).withKeySource("argument"),
                    ResultMapper.utf8(),
                    ctx -> "refund"));
    SpanData replayed =
        traced(() -> gate.execute(call("key-a1", 5), ResultMapper.utf8(), ctx -> "again"));
    SpanData conflict =
        traced(() -> gate.execute(call("key-a1", 6), ResultMapper.utf8(), ctx -> "other"));
    gate.claim(call("key-b2", 5));
    SpanData inProgress =
        traced(() -> gate.execute(call("key-b2", 5), ResultMapper.utf8(), ctx -> "held"));
    SpanData released =
        traced(
            () ->
                gate.execute(
                    call("key-c3", 5),
                    ResultMapper.utf8(),
                    ctx -> {
                      throw new IllegalStateException("declined");
                    }));

    assertThat(executed.getAttributes().asMap())
        .isEqualTo(decision("executed", true, "argument", 1L));
    assertThat(replayed.getAttributes().asMap())
        .isEqualTo(decision("replayed", false, "none", 1L)); // the attempt replayed from
    assertThat(conflict.getAttributes().asMap())
        .isEqualTo(decision("refused.conflict", false, "none", null));
    assertThat(inProgress.getAttributes().asMap())
        .isEqualTo(decision("refused.in_progress", false, "none", null));
    assertThat(released.getAttributes().asMap()).isEqualTo(decision("executed", true, "none", 1L));
    assertThat(spans.getFinishedSpanItems())
        .hasSize(5) // ours only: the gate adds none
        .allSatisfy(s -> assertThat(s.getName()).isEqualTo("tools/call " + TOOL));
  }

  @Test
  void aCallRefusedBeforeTheGateIsCountedAndOnTheSpanWithoutTenantKeyOrArguments() {
    IdempotencyGate gate = gate();
    // the MCP adapter's refusal of a call without a key, and the gate's own of unhashable arguments
    SpanData noKey =
        traced(
            () -> {
              gate.rejected(TOOL, RejectionReason.KEY_REQUIRED, null);
              return null;
            });
    keys.add("key-n1");
    SpanData nan =
        traced(
            () ->
                gate.execute(
                    ToolCall.of(TENANT, TOOL, "key-n1", Map.of("order_id", ORDER, "x", Double.NaN))
                        .withKeySource("argument"),
                    ResultMapper.utf8(),
                    ctx -> "never"));

    assertThat(counts(collect(), "mcpgate.calls"))
        .isEqualTo(
            Map.of(
                calls("rejected.key_required", "none"), 1L,
                calls("rejected.arguments_invalid", "argument"), 1L));
    assertThat(noKey.getAttributes().asMap())
        .isEqualTo(decision("rejected.key_required", false, "none", null));
    assertThat(nan.getAttributes().asMap())
        .isEqualTo(decision("rejected.arguments_invalid", false, "argument", null));
  }

  @Test
  void aTakeoverIsADecisionAndTheOvertakenAttemptEndsWithItsLeaseLost() throws Exception {
    IdempotencyGate gate =
        gate(
            InMemoryIdempotencyStore.create(),
            GatePolicy.builder()
                .lease(Duration.ofMillis(300))
                .leaseRenewal(Duration.ZERO)
                .inFlightWait(Duration.ZERO)
                .build());
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder =
        new Thread(
            () ->
                gate.execute(
                    call("key-t1", 5),
                    ResultMapper.utf8(),
                    ctx -> {
                      started.countDown();
                      release.await(10, TimeUnit.SECONDS);
                      return "refund-1";
                    }));
    holder.start();
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(400);
    SpanData takeover =
        traced(() -> gate.execute(call("key-t1", 5), ResultMapper.utf8(), ctx -> "refund-2"));
    release.countDown();
    holder.join();

    assertThat(takeover.getAttributes().asMap()).isEqualTo(decision("takeover", true, "none", 2L));
    Map<String, MetricData> all = collect();
    assertThat(counts(all, "mcpgate.calls"))
        .isEqualTo(
            Map.of(
                calls("executed", "none"), 1L,
                calls("takeover", "none"), 1L));
    assertThat(counts(all, "mcpgate.attempts.ended"))
        .isEqualTo(
            Map.of(
                ended("completed"), 1L,
                ended("lease_lost"), 1L));
  }

  @Test
  void aWaitOnAnotherAttemptIsRecordedInSecondsForTheCallThatWaited() throws Exception {
    java.util.concurrent.CountDownLatch secondClaim = new java.util.concurrent.CountDownLatch(2);
    IdempotencyGate gate =
        gate(
            new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
              @Override
              public ClaimAttempt claim(ClaimRequest request) {
                ClaimAttempt attempt = super.claim(request);
                secondClaim.countDown();
                return attempt;
              }
            },
            GatePolicy.builder()
                .inFlightWait(Duration.ofSeconds(10))
                .leaseRenewal(Duration.ZERO)
                .build());
    var first = (ClaimOutcome.Acquired) gate.claim(call("key-w1", 5).withKeySource("meta"));
    Thread finisher =
        new Thread(
            () -> {
              try {
                // the second call found the key in flight and waits; it is done 150 ms later
                secondClaim.await();
                Thread.sleep(150);
              } catch (InterruptedException e) {
                return;
              }
              gate.complete(first, "refund".getBytes(StandardCharsets.UTF_8), false);
            });
    finisher.start();
    GateResult<String> r =
        gate.execute(
            call("key-w1", 5).withKeySource("argument"), ResultMapper.utf8(), ctx -> "again");
    finisher.join();

    assertThat(r).isInstanceOf(GateResult.Replayed.class);
    Map<String, MetricData> all = collect();
    assertThat(counts(all, "mcpgate.calls"))
        .isEqualTo(
            Map.of(
                calls("executed", "meta"), 1L,
                calls("replayed", "argument"), 1L));
    var waits = histogram(all, "mcpgate.inflight.wait");
    Attributes replayed = attrs("tool", TOOL, "outcome", "replayed", "store", "memory");
    assertThat(waits).containsOnlyKeys(replayed); // the first call did not wait
    assertThat(waits.get(replayed).getCount()).isEqualTo(1);
    assertThat(waits.get(replayed).getSum()).isBetween(0.1, 10.0); // seconds
  }

  /** Lets lease extensions fail, as an unreachable store does. */
  private static final class Unreachable extends ForwardingIdempotencyStore {
    final AtomicBoolean down = new AtomicBoolean();

    Unreachable(IdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
      if (down.get()) {
        throw new StoreUnavailableException("the store is unreachable (test)", null);
      }
      return super.extendLeases(leases, lease, within);
    }
  }

  @Test
  void leaseRenewalsAreCountedByResultAndAFailedExtensionIsAStoreError() throws Exception {
    Unreachable store = new Unreachable(InMemoryIdempotencyStore.create());
    IdempotencyGate gate =
        gate(
            store,
            GatePolicy.builder()
                .lease(Duration.ofMillis(2_000))
                .leaseRenewal(Duration.ofMillis(50))
                .inFlightWait(Duration.ZERO)
                .build());

    GateResult<String> r =
        gate.execute(
            call("key-r1", 5),
            ResultMapper.utf8(),
            ctx -> {
              Thread.sleep(300);
              store.down.set(true);
              Thread.sleep(300);
              store.down.set(false);
              return "refund";
            });

    assertThat(r).isInstanceOf(GateResult.Executed.class);
    Map<String, MetricData> all = collect();
    Map<Attributes, Long> renewals = counts(all, "mcpgate.lease.renewals");
    Attributes renewed = attrs("result", "renewed", "store", "memory");
    Attributes failed = attrs("result", "failed", "store", "memory");
    assertThat(renewals).containsOnlyKeys(renewed, failed);
    assertThat(renewals.get(renewed)).isGreaterThanOrEqualTo(2);
    assertThat(renewals.get(failed)).isGreaterThanOrEqualTo(2);
    Map<Attributes, Long> operations = histogramCounts(all, "mcpgate.store.operations");
    // one lease per batch: each renewal event is one extension (an answer that comes back after
    // the action ended is timed, but no longer told)
    assertThat(operations.get(operation("extend_many", "success")))
        .isGreaterThanOrEqualTo(renewals.get(renewed));
    assertThat(operations.get(operation("extend_many", "error")))
        .isGreaterThanOrEqualTo(renewals.get(failed));
    assertThat(operations)
        .containsEntry(operation("claim", "success"), 1L)
        .containsEntry(operation("complete", "success"), 1L)
        .containsOnlyKeys(
            operation("claim", "success"),
            operation("complete", "success"),
            operation("extend_many", "success"),
            operation("extend_many", "error"));
    assertThat(counts(all, "mcpgate.attempts.ended")).isEqualTo(Map.of(ended("completed"), 1L));
  }

  @Test
  void withoutASpanNothingIsAddedAndTheMetricsAreStillRecorded() {
    IdempotencyGate gate = gate();
    assertThat(Span.current().getSpanContext().isValid()).isFalse();
    assertThat(gate.execute(call("key-a1", 5), ResultMapper.utf8(), ctx -> "refund"))
        .isInstanceOf(GateResult.Executed.class);
    assertThat(spans.getFinishedSpanItems()).isEmpty();
    assertThat(counts(collect(), "mcpgate.calls")).isEqualTo(Map.of(calls("executed", "none"), 1L));
  }

  @Test
  @SuppressWarnings("try")
  void aSpanThatIsNotRecordedIsLeftAlone() {
    IdempotencyGate gate = gate();
    Span unsampled =
        Span.wrap(
            SpanContext.create(
                "0af7651916cd43dd8448eb211c80319c",
                "b7ad6b7169203331",
                TraceFlags.getDefault(),
                TraceState.getDefault()));
    try (Scope scope = unsampled.makeCurrent()) {
      assertThat(gate.execute(call("key-a1", 5), ResultMapper.utf8(), ctx -> "refund"))
          .isInstanceOf(GateResult.Executed.class);
    }
    assertThat(spans.getFinishedSpanItems()).isEmpty();
  }

  @Test
  void argumentsAreChecked() {
    assertThatThrownBy(() -> GateTelemetry.listener(null, "memory"))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("openTelemetry");
    assertThatThrownBy(() -> GateTelemetry.listener(otel, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("store");
    assertThatThrownBy(() -> GateTelemetry.store(null, otel, "memory"))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("delegate");
  }
}
