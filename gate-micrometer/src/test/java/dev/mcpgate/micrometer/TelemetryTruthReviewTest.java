package dev.mcpgate.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review: do the meters and the observation say what really happened to a call? An operator who
 * alerts on {@code mcpgate.calls} is a caller too.
 */
class TelemetryTruthReviewTest {
  private static final String TOOL = "refund_order";

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ObservationRegistry observations = ObservationRegistry.create();

  TelemetryTruthReviewTest() {
    observations
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
  }

  private IdempotencyGate.Builder gate(InMemoryIdempotencyStore store) {
    return IdempotencyGate.builder(store)
        .listener(GateMetrics.of(meters, "memory"))
        .listener(GateObservations.of(observations, "memory"));
  }

  private static ToolCall call(String key) {
    return ToolCall.of("acme", TOOL, key, Map.of("amount", 5));
  }

  private double calls(String outcome) {
    return meters.find("mcpgate.calls").tags("tool", TOOL, "outcome", outcome).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  /** A unit of work whose begin() fails: a connection pool that is exhausted. */
  static final class PoolExhaustedScope implements TransactionScope<Object> {
    @Override
    public Object begin() {
      throw new IllegalStateException("connection pool exhausted (test)");
    }

    @Override
    public boolean complete(
        Object r, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      throw new AssertionError("never begun");
    }

    @Override
    public boolean release(Object r, ClaimId id, LeaseToken token) {
      throw new AssertionError("never begun");
    }

    @Override
    public void commit(Object r) {}

    @Override
    public void rollback(Object r) {}

    @Override
    public void close(Object r) {}
  }

  /**
   * F-T1a: the unit of work cannot begin (a pool exhausted), so the action never starts and the
   * caller is told STORE_UNAVAILABLE, nothing ran. The meters count the call as {@code executed}
   * and the observation says {@code mcpgate.ran=true}; no {@code failed.store_unavailable} is
   * counted for it.
   */
  @Test
  void aCallWhoseUnitOfWorkCannotBeginIsNotCountedAsExecuted() {
    IdempotencyGate gate = gate(InMemoryIdempotencyStore.create()).build();
    AtomicInteger effects = new AtomicInteger();
    Observation observation = Observation.start("mcp.tool.call", observations);
    GateResult<String> result;
    try (Observation.Scope scope = observation.openScope()) {
      result =
          gate.execute(
              call("k-" + UUID.randomUUID()),
              ResultMapper.utf8(),
              new PoolExhaustedScope(),
              (r, ctx) -> {
                effects.incrementAndGet();
                return "refunded";
              });
    } finally {
      observation.stop();
    }
    assertThat(result).isInstanceOf(GateResult.Failed.class);
    GateResult.Failed<String> failed = (GateResult.Failed<String>) result;
    assertThat(failed.reason()).isEqualTo(FailureReason.STORE_UNAVAILABLE);
    assertThat(failed.effect()).isEqualTo(GateResult.Effect.NO);
    assertThat(effects).hasValue(0);

    String ran =
        observation.getContext().getLowCardinalityKeyValue("mcpgate.ran") == null
            ? null
            : observation.getContext().getLowCardinalityKeyValue("mcpgate.ran").getValue();
    assertThat(
            Map.of(
                "executed", calls("executed"),
                "failed.store_unavailable", calls("failed.store_unavailable"),
                "mcpgate.ran", String.valueOf(ran)))
        .as(
            "the caller was told STORE_UNAVAILABLE, executed: no, and the action never ran;"
                + " the meters and the observation must say the same")
        .isEqualTo(
            Map.of("executed", 0.0, "failed.store_unavailable", 1.0, "mcpgate.ran", "false"));
  }

  /** A unit of work whose begin() blocks until released: waiting for a pooled connection. */
  static final class SlowBeginScope implements TransactionScope<Object> {
    final InMemoryIdempotencyStore store;
    final CountDownLatch inBegin = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);

    SlowBeginScope(InMemoryIdempotencyStore store) {
      this.store = store;
    }

    @Override
    public Object begin() {
      inBegin.countDown();
      try {
        go.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new Object();
    }

    @Override
    public boolean complete(
        Object r, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      return store.complete(id, token, result, retention);
    }

    @Override
    public boolean release(Object r, ClaimId id, LeaseToken token) {
      return store.release(id, token);
    }

    @Override
    public void commit(Object r) {}

    @Override
    public void rollback(Object r) {}

    @Override
    public void close(Object r) {}
  }

  /**
   * F-T1b: close()'s drain stops a call after its claim, before its action: the caller gets
   * GATE_CLOSED (nothing ran, safe to retry). The meters count it as {@code executed}, and {@code
   * failed.gate_closed} never counts it.
   */
  @Test
  void aCallTheDrainStopsBeforeItsActionIsCountedAsGateClosedNotExecuted() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    IdempotencyGate gate =
        gate(store)
            .policy(
                GatePolicy.builder()
                    .lease(Duration.ofSeconds(5))
                    .inFlightWait(Duration.ZERO)
                    .build())
            .drainTimeout(Duration.ofMinutes(5))
            .build();
    SlowBeginScope scope = new SlowBeginScope(store);
    AtomicInteger effects = new AtomicInteger();
    CompletableFuture<GateResult<String>> running =
        CompletableFuture.supplyAsync(
            () ->
                gate.execute(
                    call("k-" + UUID.randomUUID()),
                    ResultMapper.utf8(),
                    scope,
                    (r, ctx) -> {
                      effects.incrementAndGet();
                      return "refunded";
                    }));
    assertThat(scope.inBegin.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(gate::close);
    awaitDraining(gate);
    scope.go.countDown();
    GateResult<String> result = running.get(60, TimeUnit.SECONDS);
    closing.get(60, TimeUnit.SECONDS);

    assertThat(effects).hasValue(0);
    assertThat(result).isInstanceOf(GateResult.Failed.class);
    assertThat(((GateResult.Failed<String>) result).reason()).isEqualTo(FailureReason.GATE_CLOSED);
    assertThat(
            Map.of(
                "executed", calls("executed"), "failed.gate_closed", calls("failed.gate_closed")))
        .as("the caller was told GATE_CLOSED (nothing ran); the meters must say the same")
        .isEqualTo(Map.of("executed", 0.0, "failed.gate_closed", 1.0));
  }

  private static void awaitDraining(IdempotencyGate gate) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (int i = 0; System.nanoTime() < until; i++) {
      GateResult<String> probe =
          gate.execute(
              ToolCall.of("acme", "probe", "p" + i, Map.of()), ResultMapper.utf8(), ctx -> "p");
      if (probe instanceof GateResult.Failed<String> f && f.reason() == FailureReason.GATE_CLOSED) {
        return;
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the gate never began draining");
  }

  /**
   * F-T2a: the stored result cannot be read back by the result mapper (changed since the first
   * call, as in a rolling deploy): the caller gets RESULT_UNREADABLE, but the meters count a {@code
   * replayed} call, and the observation says {@code mcpgate.outcome=replayed}.
   */
  @Test
  void aReplayTheMapperCannotReadIsNotCountedAsReplayed() {
    IdempotencyGate gate = gate(InMemoryIdempotencyStore.create()).build();
    ToolCall call = call("k-" + UUID.randomUUID());
    gate.execute(call, ResultMapper.utf8(), ctx -> "refunded");
    ResultMapper<String> changed =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
          }

          @Override
          public String fromBytes(byte[] bytes) {
            throw new IllegalArgumentException("unknown format (test)");
          }
        };
    Observation observation = Observation.start("mcp.tool.call", observations);
    GateResult<String> retry;
    try (Observation.Scope scope = observation.openScope()) {
      retry = gate.execute(call, changed, ctx -> "again");
    } finally {
      observation.stop();
    }
    assertThat(retry).isInstanceOf(GateResult.Failed.class);
    assertThat(((GateResult.Failed<String>) retry).reason())
        .isEqualTo(FailureReason.RESULT_UNREADABLE);
    var outcome = observation.getContext().getLowCardinalityKeyValue("mcpgate.outcome");
    assertThat(
            Map.of(
                "replayed", calls("replayed"),
                "failed.result_unreadable", calls("failed.result_unreadable"),
                "mcpgate.outcome", outcome == null ? "none" : outcome.getValue()))
        .as("the caller got RESULT_UNREADABLE, not a replay")
        .isEqualTo(
            Map.of(
                "replayed",
                0.0,
                "failed.result_unreadable",
                1.0,
                "mcpgate.outcome",
                "failed.result_unreadable"));
  }

  /**
   * F-T2b: the same with the codec (a codec key dropped): the caller gets RESULT_UNREADABLE, and
   * the call is counted nowhere in {@code mcpgate.calls}: no decision is told for it.
   */
  @Test
  void aReplayTheCodecCannotReadIsCountedAsACallDecision() {
    AtomicBoolean keyDropped = new AtomicBoolean();
    ResultCodec codec =
        new ResultCodec() {
          @Override
          public byte[] encode(ClaimId id, byte[] plain) {
            return plain.clone();
          }

          @Override
          public byte[] decode(ClaimId id, byte[] stored) {
            if (keyDropped.get()) {
              throw new IllegalStateException("codec key k1 not found (test)");
            }
            return stored.clone();
          }
        };
    IdempotencyGate gate = gate(InMemoryIdempotencyStore.create()).codec(codec).build();
    ToolCall call = call("k-" + UUID.randomUUID());
    gate.execute(call, ResultMapper.utf8(), ctx -> "refunded");
    keyDropped.set(true);
    GateResult<String> retry = gate.execute(call, ResultMapper.utf8(), ctx -> "again");
    assertThat(retry).isInstanceOf(GateResult.Failed.class);
    assertThat(((GateResult.Failed<String>) retry).reason())
        .isEqualTo(FailureReason.RESULT_UNREADABLE);
    double total =
        meters.find("mcpgate.calls").tags("tool", TOOL).counters().stream()
            .mapToDouble(Counter::count)
            .sum();
    assertThat(total)
        .as(
            "two calls reached the gate (one executed, one failed RESULT_UNREADABLE);"
                + " mcpgate.calls is one per call decision: %s",
            meters.find("mcpgate.calls").counters().stream()
                .map(c -> c.getId().getTags() + "=" + c.count())
                .toList())
        .isEqualTo(2.0);
  }

  /**
   * F-T3: a retry whose unknown outcome the reconciler settles as "happened" gets a replay; the
   * caller sent its key as an argument, but the replay is counted with {@code key_source=none}
   * (documented as "the caller did not say").
   */
  @Test
  void aReconciledReplayKeepsTheCallsKeySource() {
    byte[] reconciled = "refunded (reconciled)".getBytes(StandardCharsets.UTF_8);
    IdempotencyGate gate =
        gate(InMemoryIdempotencyStore.create())
            .policy(
                GatePolicy.builder()
                    .reconciler((id, downstreamKey) -> Reconciler.Verdict.happened(reconciled))
                    .build())
            .build();
    ToolCall call = call("k-" + UUID.randomUUID()).withKeySource("argument");
    GateResult<String> first =
        gate.execute(
            call,
            ResultMapper.utf8(),
            ctx -> {
              throw new OutcomeUnknownException("provider timed out (test)");
            });
    assertThat(first).isInstanceOf(GateResult.Failed.class);
    GateResult<String> retry = gate.execute(call, ResultMapper.utf8(), ctx -> "again");
    assertThat(retry).isInstanceOf(GateResult.Replayed.class);

    Counter none =
        meters
            .find("mcpgate.calls")
            .tags("tool", TOOL, "outcome", "replayed", "key_source", "none")
            .counter();
    Counter argument =
        meters
            .find("mcpgate.calls")
            .tags("tool", TOOL, "outcome", "replayed", "key_source", "argument")
            .counter();
    assertThat(
            Map.of(
                "none", none == null ? 0.0 : none.count(),
                "argument", argument == null ? 0.0 : argument.count()))
        .as("the replay's key came from an argument, as the call said")
        .isEqualTo(Map.of("none", 0.0, "argument", 1.0));
  }
}
