package dev.mcpgate.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The meters and observation attributes of a run of calls, by name, tag and value. */
class GateMicrometerTest {
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ObservationRegistry observations = ObservationRegistry.create();
  private final IdempotencyGate gate;

  GateMicrometerTest() {
    observations
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
    gate =
        IdempotencyGate.builder(
                MeteredStore.of(InMemoryIdempotencyStore.create(), meters, "memory"))
            .listener(GateMetrics.of(meters, "memory"))
            .listener(GateObservations.of(observations, "memory"))
            .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
            .build();
  }

  private static ToolCall call(String key, int amount) {
    return ToolCall.of("acme", "refund_order", key, Map.of("amount", amount));
  }

  private double calls(String outcome) {
    var c =
        meters
            .find("mcpgate.calls")
            .tags(
                "tool", "refund_order", "outcome", outcome, "store", "memory", "key_source", "none")
            .counter();
    return c == null ? 0 : c.count();
  }

  /** Runs the call inside an observation, as a traced tool call would, and returns its context. */
  private Observation.Context observed(Supplier<GateResult<String>> call) {
    Observation observation = Observation.start("mcp.tool.call", observations);
    try (Observation.Scope scope = observation.openScope()) {
      call.get();
    } finally {
      observation.stop();
    }
    return observation.getContext();
  }

  @Test
  void callsAreCountedByToolAndOutcomeWithoutTenantKeyOrArguments() {
    gate.execute(call("k-1", 5), ResultMapper.utf8(), ctx -> "refund");
    gate.execute(call("k-1", 5), ResultMapper.utf8(), ctx -> "again");
    gate.execute(call("k-1", 6), ResultMapper.utf8(), ctx -> "other");
    gate.claim(call("k-2", 5));
    gate.execute(call("k-2", 5), ResultMapper.utf8(), ctx -> "held");
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k-3", 5),
                        ResultMapper.utf8(),
                        ctx -> {
                          throw new IllegalStateException("declined");
                        })
                    .orThrow())
        .hasMessage("declined");

    assertThat(calls("executed")).isEqualTo(3); // k-1, the k-2 claim, k-3
    assertThat(calls("replayed")).isEqualTo(1);
    assertThat(calls("refused.conflict")).isEqualTo(1);
    assertThat(calls("refused.in_progress")).isEqualTo(1);
    assertThat(meters.get("mcpgate.attempts.ended").tags("result", "completed").counter().count())
        .isEqualTo(1);
    assertThat(meters.get("mcpgate.attempts.ended").tags("result", "released").counter().count())
        .isEqualTo(1);
    for (Meter m : meters.getMeters()) {
      assertThat(m.getId().getTags())
          .allSatisfy(
              t -> {
                assertThat(t.getKey())
                    .isIn("tool", "outcome", "result", "store", "operation", "key_source");
                assertThat(t.getValue()).doesNotContain("acme", "k-1", "k-2", "k-3");
              });
    }
  }

  @Test
  void aCallRefusedBeforeTheGateIsCountedAndObservedWithoutTenantKeyOrArguments() {
    // the MCP adapter's refusal of a call without a key, and the gate's own of unhashable arguments
    Observation.Context noKey =
        observed(
            () -> {
              gate.rejected("refund_order", RejectionReason.TENANT_UNKNOWN, null);
              return null;
            });
    Observation.Context nan =
        observed(
            () ->
                gate.execute(
                    ToolCall.of("acme", "refund_order", "k-nan", Map.of("amount", Double.NaN))
                        .withKeySource("argument"),
                    ResultMapper.utf8(),
                    ctx -> "never"));

    assertThat(calls("rejected.tenant_unknown")).isEqualTo(1);
    assertThat(
            meters
                .get("mcpgate.calls")
                .tags("outcome", "rejected.arguments_invalid", "key_source", "argument")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(noKey.getLowCardinalityKeyValue("mcpgate.outcome").getValue())
        .isEqualTo("rejected.tenant_unknown");
    assertThat(noKey.getLowCardinalityKeyValue("mcpgate.ran").getValue()).isEqualTo("false");
    assertThat(noKey.getHighCardinalityKeyValue("mcpgate.attempt")).isNull();
    assertThat(nan.getLowCardinalityKeyValue("mcpgate.outcome").getValue())
        .isEqualTo("rejected.arguments_invalid");
    for (Meter m : meters.getMeters()) {
      assertThat(m.getId().getTags())
          .allSatisfy(t -> assertThat(t.getValue()).doesNotContain("acme", "k-nan", "NaN"));
    }
  }

  @Test
  void aCallTheStoreCouldNotClaimIsCountedAndObservedAsFailed() {
    ForwardingIdempotencyStore down =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            throw new StoreUnavailableException("connection refused (test)", null);
          }
        };
    try (IdempotencyGate failing =
        IdempotencyGate.builder(down)
            .listener(GateMetrics.of(meters, "memory"))
            .listener(GateObservations.of(observations, "memory"))
            .build()) {
      Observation.Context context =
          observed(() -> failing.execute(call("k-down", 5), ResultMapper.utf8(), ctx -> "never"));

      assertThat(calls("failed.store_unavailable")).isEqualTo(1);
      assertThat(context.getLowCardinalityKeyValue("mcpgate.outcome").getValue())
          .isEqualTo("failed.store_unavailable");
      assertThat(context.getLowCardinalityKeyValue("mcpgate.ran").getValue()).isEqualTo("false");
    }
  }

  @Test
  void storeOperationsAreTimedByOperationAndOutcome() {
    gate.execute(call("k-1", 5), ResultMapper.utf8(), ctx -> "refund");
    gate.execute(call("k-1", 5), ResultMapper.utf8(), ctx -> "again");

    assertThat(
            meters
                .get("mcpgate.store.operations")
                .tags("operation", "claim", "outcome", "success")
                .timer()
                .count())
        .isEqualTo(2);
    assertThat(meters.get("mcpgate.store.operations").tags("operation", "complete").timer().count())
        .isEqualTo(1);
  }

  @Test
  void theCurrentObservationLearnsWhatTheGateDecided() {
    Observation.Context executed =
        observed(() -> gate.execute(call("k-1", 5), ResultMapper.utf8(), ctx -> "refund"));
    Observation.Context replayed =
        observed(() -> gate.execute(call("k-1", 5), ResultMapper.utf8(), ctx -> "again"));
    Observation.Context refused =
        observed(() -> gate.execute(call("k-1", 6), ResultMapper.utf8(), ctx -> "other"));

    assertThat(executed.getLowCardinalityKeyValue("mcpgate.outcome").getValue())
        .isEqualTo("executed");
    assertThat(executed.getLowCardinalityKeyValue("mcpgate.ran").getValue()).isEqualTo("true");
    assertThat(executed.getLowCardinalityKeyValue("mcpgate.store").getValue()).isEqualTo("memory");
    assertThat(replayed.getLowCardinalityKeyValue("mcpgate.outcome").getValue())
        .isEqualTo("replayed");
    assertThat(replayed.getLowCardinalityKeyValue("mcpgate.ran").getValue()).isEqualTo("false");
    assertThat(replayed.getHighCardinalityKeyValue("mcpgate.attempt").getValue()).isEqualTo("1");
    assertThat(refused.getLowCardinalityKeyValue("mcpgate.outcome").getValue())
        .isEqualTo("refused.conflict");
  }

  @Test
  void theKeySourceIsATagAndAWaitOnAnotherAttemptIsTimed() throws Exception {
    IdempotencyGate waiting =
        gate.withPolicy(gate.policy().toBuilder().inFlightWait(Duration.ofSeconds(10)).build());
    var first =
        (dev.mcpgate.core.ClaimOutcome.Acquired)
            waiting.claim(call("k-1", 5).withKeySource("meta"));
    Thread finisher =
        new Thread(
            () -> {
              try {
                Thread.sleep(150);
              } catch (InterruptedException e) {
                return;
              }
              waiting.complete(
                  first, "refund".getBytes(java.nio.charset.StandardCharsets.UTF_8), false);
            });
    finisher.start();
    GateResult<String> r =
        waiting.execute(
            call("k-1", 5).withKeySource("argument"), ResultMapper.utf8(), ctx -> "again");
    finisher.join();

    assertThat(r).isInstanceOf(GateResult.Replayed.class);
    assertThat(
            meters
                .get("mcpgate.calls")
                .tags("outcome", "executed", "key_source", "meta")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            meters
                .get("mcpgate.calls")
                .tags("outcome", "replayed", "key_source", "argument")
                .counter()
                .count())
        .isEqualTo(1);
    var wait = meters.get("mcpgate.inflight.wait").tags("outcome", "replayed").timer();
    assertThat(wait.count()).isEqualTo(1);
    assertThat(wait.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isPositive();
    assertThat(meters.find("mcpgate.inflight.wait").tags("outcome", "executed").timer())
        .isNull(); // the first call did not wait
  }

  @Test
  void withoutACurrentObservationNothingIsAddedAndNothingFails() {
    assertThat(observations.getCurrentObservation()).isNull();
    assertThat(gate.execute(call("k-1", 5), ResultMapper.utf8(), ctx -> "refund"))
        .isInstanceOf(GateResult.Executed.class);
  }
}
