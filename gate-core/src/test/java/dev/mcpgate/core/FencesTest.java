package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.FailurePathsTest.UnitOfWork;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Fences that hold: an unknown outcome stays fenced past its lease and is put to the reconciler
 * first; an interrupted or cancelled action is fenced, not released; an operator settles an unknown
 * key; nothing between the action and the commit commits; durations are bounded.
 */
class FencesTest {
  private static final Duration LEASE = Duration.ofSeconds(2);

  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();

  private IdempotencyGate gate(GatePolicy.Builder policy) {
    return IdempotencyGate.builder(store)
        .listener(events::add)
        .policy(policy.lease(LEASE).leaseRenewal(Duration.ZERO).inFlightWait(Duration.ZERO).build())
        .build();
  }

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  private ClaimState state(String key) {
    return store.find(call(key).id()).orElseThrow().state();
  }

  private static GateAction<String> unknown(AtomicInteger runs) {
    return ctx -> {
      runs.incrementAndGet();
      throw new OutcomeUnknownException("the provider timed out (test)");
    };
  }

  @Test
  void aRetryAfterTheLeaseAsksTheReconcilerBeforeAnythingRuns() {
    AtomicInteger asked = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    IdempotencyGate gate =
        gate(
            GatePolicy.builder()
                .reconciler(
                    (id, downstreamKey) -> {
                      asked.incrementAndGet();
                      assertThat(runs).as("asked before the retry runs").hasValue(1);
                      return Reconciler.Verdict.notHappened();
                    }));
    assertThatThrownBy(() -> gate.execute(call("k"), ResultMapper.utf8(), unknown(runs)).orThrow())
        .isInstanceOf(OutcomeUnknownException.class);
    clock.advance(LEASE.multipliedBy(3)); // the lease ran out long ago

    GateResult<String> retry =
        gate.execute(call("k"), ResultMapper.utf8(), ctx -> "ran-" + runs.incrementAndGet());

    assertThat(asked).hasValue(1);
    assertThat(retry)
        .isInstanceOfSatisfying(
            GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("ran-2"));
  }

  @Test
  void withoutAReconcilerAnUnknownKeyStaysFencedForItsFenceThenIsFree() {
    AtomicInteger runs = new AtomicInteger();
    IdempotencyGate gate = gate(GatePolicy.builder().unknownFence(Duration.ofMinutes(30)));
    assertThatThrownBy(() -> gate.execute(call("k"), ResultMapper.utf8(), unknown(runs)).orThrow())
        .isInstanceOf(OutcomeUnknownException.class);

    clock.advance(Duration.ofMinutes(29));
    assertThat(gate.execute(call("k"), ResultMapper.utf8(), ctx -> "ran"))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> {
              assertThat(r.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN);
              assertThat(r.message()).contains("settles it");
            });
    clock.advance(Duration.ofMinutes(1));
    assertThat(gate.execute(call("k"), ResultMapper.utf8(), ctx -> "ran"))
        .isInstanceOf(GateResult.Executed.class);
    assertThat(runs).hasValue(1);
  }

  @Test
  void theFenceIsTheRetentionUnlessSet() {
    GatePolicy policy = GatePolicy.builder().retention(Duration.ofHours(3)).build();
    assertThat(policy.unknownFence()).isEqualTo(Duration.ofHours(3));
    assertThat(policy.toBuilder().retention(Duration.ofHours(5)).build().unknownFence())
        .as("a fence that followed the retention follows a new one")
        .isEqualTo(Duration.ofHours(5));
    assertThat(policy.toBuilder().unknownFence(Duration.ofMinutes(7)).build().unknownFence())
        .isEqualTo(Duration.ofMinutes(7));
  }

  @Test
  void anInterruptedActionIsFencedAsUnknownNotReleased() {
    IdempotencyGate gate = gate(GatePolicy.builder());
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k"),
                        ResultMapper.utf8(),
                        ctx -> {
                          Thread.currentThread().interrupt();
                          throw new IllegalStateException(
                              "interrupted while waiting for the provider (test)");
                        })
                    .orThrow())
        .isInstanceOf(IllegalStateException.class);
    assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();

    assertThat(state("k")).isEqualTo(ClaimState.UNKNOWN);
    assertThat(events).extracting(GateEvent::type).endsWith(GateEvent.Type.MARKED_UNKNOWN);
  }

  @Test
  void aCancelledActionIsFencedAsUnknownNotReleased() {
    IdempotencyGate gate = gate(GatePolicy.builder());
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k"),
                        ResultMapper.utf8(),
                        ctx -> {
                          throw new RuntimeException(
                              new CancellationException("the client went away (test)"));
                        })
                    .orThrow())
        .isInstanceOf(RuntimeException.class);
    assertThat(state("k")).isEqualTo(ClaimState.UNKNOWN);

    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k2"),
                        ResultMapper.utf8(),
                        ctx -> {
                          throw new IllegalStateException("declined (test)");
                        })
                    .orThrow())
        .isInstanceOf(IllegalStateException.class);
    assertThat(store.find(call("k2").id())).as("an ordinary failure is released").isEmpty();
  }

  @Test
  void anOperatorSettlesAnUnknownKey() {
    AtomicInteger runs = new AtomicInteger();
    IdempotencyGate gate = gate(GatePolicy.builder());
    for (String key : List.of("happened", "not-happened")) {
      assertThatThrownBy(
              () -> gate.execute(call(key), ResultMapper.utf8(), unknown(runs)).orThrow())
          .isInstanceOf(OutcomeUnknownException.class);
    }
    ClaimId happened = call("happened").id();
    assertThatThrownBy(() -> gate.resolveUnknown(happened, Reconciler.Verdict.stillUnknown()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stillUnknown");

    assertThat(
            gate.resolveUnknown(
                happened,
                Reconciler.Verdict.happened("refund rf_1".getBytes(StandardCharsets.UTF_8))))
        .isTrue();
    assertThat(gate.resolveUnknown(call("not-happened").id(), Reconciler.Verdict.notHappened()))
        .isTrue();

    assertThat(gate.execute(call("happened"), ResultMapper.utf8(), ctx -> "ran"))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("refund rf_1"));
    assertThat(gate.execute(call("not-happened"), ResultMapper.utf8(), ctx -> "ran"))
        .isInstanceOf(GateResult.Executed.class);
    assertThat(gate.resolveUnknown(happened, Reconciler.Verdict.notHappened()))
        .as("a completed key is not unknown: nothing to settle")
        .isFalse();
    assertThat(gate.resolveUnknown(call("absent").id(), Reconciler.Verdict.notHappened()))
        .isFalse();
  }

  @Test
  void anErrorBetweenTheActionAndTheCommitCommitsNothing() {
    IdempotencyGate gate = gate(GatePolicy.builder());
    UnitOfWork unit = new UnitOfWork(store);
    ResultMapper<String> broken =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(String value) {
            throw new AssertionError("the mapper broke (test)");
          }

          @Override
          public String fromBytes(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
          }
        };

    assertThatThrownBy(
            () -> gate.execute(call("k"), broken, unit, (writes, ctx) -> "paid").orThrow())
        .isInstanceOf(AssertionError.class);

    assertThat(unit.rolledBack).isTrue();
    assertThat(store.find(call("k").id())).as("released: nothing took effect").isEmpty();
  }

  @Test
  void durationsAreBoundedAndTheBadValueIsNamed() {
    Duration huge = Duration.ofMillis(Long.MAX_VALUE);
    assertThatThrownBy(() -> GatePolicy.builder().retention(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retention")
        .hasMessageContaining(huge.toString());
    assertThatThrownBy(() -> GatePolicy.builder().lease(GatePolicy.MAX_DURATION.plusMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> GatePolicy.builder().unknownFence(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknownFence");
    assertThatThrownBy(() -> GatePolicy.builder().inFlightWait(Duration.ofHours(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("inFlightWait");
    GatePolicy longest =
        GatePolicy.builder()
            .retention(GatePolicy.MAX_DURATION)
            .lease(GatePolicy.MAX_DURATION)
            .leaseRenewal(Duration.ZERO)
            .inFlightWait(GatePolicy.MAX_IN_FLIGHT_WAIT)
            .build();

    IdempotencyGate gate = IdempotencyGate.builder(store).policy(longest).build();
    assertThat(gate.execute(call("k"), ResultMapper.utf8(), ctx -> "ran"))
        .isInstanceOf(GateResult.Executed.class);
    assertThat(store.find(call("k").id()).orElseThrow().expiresAt())
        .as("the longest retention does not overflow: the row is born alive")
        .isAfter(store.now().plus(Duration.ofDays(3000)));
  }
}
