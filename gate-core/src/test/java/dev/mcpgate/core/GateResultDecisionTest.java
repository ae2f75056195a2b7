package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A call's result carries what the gate decided it by: the arguments' hash it compared, the
 * attempt, where the key came from and how long it waited, the same as its decision's event.
 */
class GateResultDecisionTest {
  private static final Map<String, Object> ARGS = Map.of("order_id", "ord_9f2", "amount", 500);
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();

  private IdempotencyGate gate(GatePolicy policy) {
    return IdempotencyGate.builder(InMemoryIdempotencyStore.create())
        .policy(policy)
        .listener(events::add)
        .build();
  }

  private static ToolCall call(String key, Map<String, ?> arguments) {
    return ToolCall.of("acme", "refund_order", key, arguments).withKeySource("argument");
  }

  private GateEvent decisionOf(ClaimId id) {
    return events.stream()
        .filter(e -> e.id().equals(id) && e.outcome() != null)
        .reduce((first, second) -> second)
        .orElseThrow();
  }

  @Test
  void executedReplayedAndRefusedCarryTheHashTheAttemptTheKeySourceAndTheWait() {
    GatePolicy policy = GatePolicy.builder().ignoredArguments(Set.of("note")).build();
    try (IdempotencyGate gate = gate(policy)) {
      String hash = ArgumentHasher.hash(ARGS, Set.of("note"));

      GateResult<String> executed = gate.execute(call("k-1", ARGS), ResultMapper.utf8(), c -> "x");
      assertThat(executed).isInstanceOf(GateResult.Executed.class);
      assertThat(executed.argsHash()).isEqualTo(hash);
      assertThat(executed.attempt()).isEqualTo(1);
      assertThat(executed.keySource()).isEqualTo("argument");
      assertThat(executed.waited()).isEqualTo(decisionOf(executed.id()).waited());

      GateResult<String> replayed = gate.execute(call("k-1", ARGS), ResultMapper.utf8(), c -> "y");
      assertThat(replayed).isInstanceOf(GateResult.Replayed.class);
      assertThat(replayed.argsHash()).isEqualTo(hash);
      assertThat(replayed.attempt()).isEqualTo(1);
      assertThat(replayed.keySource()).isEqualTo("argument");
      assertThat(replayed.waited()).isEqualTo(Duration.ZERO);

      Map<String, Object> other = Map.of("order_id", "ord_9f2", "amount", 900);
      GateResult<String> refused = gate.execute(call("k-1", other), ResultMapper.utf8(), c -> "z");
      assertThat(refused).isInstanceOf(GateResult.Refused.class);
      assertThat(refused.argsHash())
          .as("a conflict carries this call's hash, not the stored one")
          .isEqualTo(ArgumentHasher.hash(other, Set.of("note")))
          .isNotEqualTo(hash);
      assertThat(refused.attempt()).isZero();
      assertThat(refused.keySource()).isEqualTo("argument");
    }
  }

  @Test
  void aCallThatWaitedOnAnotherAttemptSaysHowLongAsItsEventDoes() throws Exception {
    GatePolicy policy = GatePolicy.builder().inFlightWait(Duration.ofMillis(60)).build();
    try (IdempotencyGate gate = gate(policy)) {
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<GateResult<String>> first =
          CompletableFuture.supplyAsync(
              () ->
                  gate.execute(
                      call("k-w", ARGS),
                      ResultMapper.utf8(),
                      c -> {
                        running.countDown();
                        release.await(10, TimeUnit.SECONDS);
                        return "first";
                      }));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

      GateResult<String> second = gate.execute(call("k-w", ARGS), ResultMapper.utf8(), c -> "2");
      release.countDown();

      assertThat(second).isInstanceOf(GateResult.Refused.class);
      assertThat(((GateResult.Refused<String>) second).reason())
          .isEqualTo(RefusalReason.IN_PROGRESS);
      assertThat(second.waited()).isPositive();
      GateEvent refusal =
          events.stream().filter(e -> e.type() == GateEvent.Type.REFUSED).findFirst().orElseThrow();
      assertThat(second.waited()).isEqualTo(refusal.waited());
      assertThat(first.get(10, TimeUnit.SECONDS).waited()).isEqualTo(Duration.ZERO);
    }
  }

  @Test
  void theOldConstructorsStillWorkWithoutTheCallsFacts() {
    ClaimId id = new ClaimId("acme", "refund_order", "k");
    GateResult.Refused<String> refused =
        new GateResult.Refused<>(id, RefusalReason.CONFLICT, Duration.ZERO, "m");
    assertThat(refused.argsHash()).isNull();
    assertThat(refused.keySource()).isNull();
    assertThat(refused.waited()).isEqualTo(Duration.ZERO);
    GateResult.Replayed<String> replayed =
        new GateResult.Replayed<>(id, "v", false, 2, Instant.EPOCH, Instant.EPOCH);
    assertThat(replayed.attempt()).isEqualTo(2);
    assertThat(replayed.waited()).isEqualTo(Duration.ZERO);
  }

  @Test
  void eachRefusalReasonIsItsOwnAuditDecisionAndMeterOutcome() {
    Set<AuditDecision> decisions = EnumSet.noneOf(AuditDecision.class);
    for (RefusalReason reason : RefusalReason.values()) {
      AuditDecision decision = AuditDecision.of(reason);
      assertThat(decisions.add(decision)).as("%s maps to a decision of its own", reason).isTrue();
      // what the adapter's valueOf(name()) gave, before the mapping was written out
      assertThat(decision.name()).isEqualTo(reason.name());
      GateEvent event =
          new GateEvent(
              GateEvent.Type.REFUSED,
              new ClaimId("acme", "refund_order", "k"),
              0,
              null,
              reason,
              "m",
              null,
              Instant.EPOCH,
              null,
              Duration.ZERO,
              "refund_order",
              null,
              null);
      // the spelling the meters and spans had, from the reason's name
      assertThat(event.outcome()).isEqualTo("refused." + reason.name().toLowerCase(Locale.ROOT));
    }
  }

  @Test
  void eachCompletionOfAnAttemptIsOneAuditDecision() {
    assertThat(AuditDecision.of(GateResult.Completion.STORED, false))
        .isEqualTo(AuditDecision.EXECUTED);
    assertThat(AuditDecision.of(GateResult.Completion.STORED, true))
        .isEqualTo(AuditDecision.TAKEOVER);
    assertThat(AuditDecision.of(GateResult.Completion.RELEASED, false))
        .isEqualTo(AuditDecision.RELEASED);
    assertThat(AuditDecision.of(GateResult.Completion.LEASE_LOST, false))
        .isEqualTo(AuditDecision.LEASE_LOST);
    assertThat(AuditDecision.of(GateResult.Completion.STORE_FAILED, false))
        .isEqualTo(AuditDecision.STORE_UNAVAILABLE);
    ClaimId id = new ClaimId("acme", "refund_order", "k");
    assertThat(
            AuditDecision.of(
                new GateResult.Replayed<>(id, "v", false, 1, Instant.EPOCH, Instant.EPOCH)))
        .isEqualTo(AuditDecision.REPLAYED);
    assertThat(
            AuditDecision.of(
                new GateResult.Refused<>(id, RefusalReason.IN_PROGRESS, Duration.ZERO, "m")))
        .isEqualTo(AuditDecision.IN_PROGRESS);
  }

  @Test
  void eachEventThatEndsAnAttemptHasTheResultTheMetersHad() {
    Set<GateEvent.Type> ending =
        EnumSet.of(
            GateEvent.Type.COMPLETED,
            GateEvent.Type.RESULT_NOT_STORED,
            GateEvent.Type.RELEASED,
            GateEvent.Type.MARKED_UNKNOWN,
            GateEvent.Type.LEASE_LOST,
            GateEvent.Type.STORE_FAILED);
    for (GateEvent.Type type : GateEvent.Type.values()) {
      GateEvent event =
          type == GateEvent.Type.REJECTED
              ? GateEvent.rejected(
                  "refund_order", RejectionReason.KEY_REQUIRED, "m", Instant.EPOCH, null)
              : new GateEvent(
                  type,
                  new ClaimId("acme", "refund_order", "k"),
                  1,
                  null,
                  type == GateEvent.Type.REFUSED ? RefusalReason.CONFLICT : null,
                  "m",
                  null,
                  Instant.EPOCH,
                  null,
                  Duration.ZERO,
                  "refund_order",
                  null,
                  type == GateEvent.Type.FAILED ? FailureReason.STORE_UNAVAILABLE : null);
      // the spelling gate-micrometer and gate-opentelemetry had, from the type's name
      assertThat(event.attemptResult())
          .as(type.name())
          .isEqualTo(ending.contains(type) ? type.name().toLowerCase(Locale.ROOT) : null);
    }
  }
}
