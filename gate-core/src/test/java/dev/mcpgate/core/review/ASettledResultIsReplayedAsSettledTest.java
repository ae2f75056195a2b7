package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a replay says of a result an operator settled. A settlement of an in-progress row whose
 * lease ran out first takes the key over (a new attempt, claimed now), so the row's attempt and
 * claim time are the settlement's, not those of the attempt that ran the effect: a replay used to
 * tell them as when the call was first executed. It now says the result was settled ({@code
 * settled}), and the MCP adapter writes when it was settled instead of a first execution's time.
 */
class ASettledResultIsReplayedAsSettledTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
  private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
  private static final byte[] REFUNDED = "refunded".getBytes(StandardCharsets.UTF_8);

  @Test
  void aResultSettledAfterATakeoverIsReplayedAsSettled() {
    MutableClock clock = new MutableClock(START);
    HookedStore store = new HookedStore(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1 runs the refund; its process dies
      clock.advance(Duration.ofSeconds(6));
      assertThat(gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED))).isTrue();
      Instant settledAt = clock.instant();
      clock.advance(Duration.ofSeconds(1));

      GateResult<String> retry = retry(gate, runs, GatePolicy.defaults());

      assertThat(runs).hasValue(0);
      GateResult.Replayed<String> replay = (GateResult.Replayed<String>) retry;
      assertThat(replay.value()).isEqualTo("refunded");
      assertThat(replay.settled()).as("the result was stored by the settlement").isTrue();
      assertThat(replay.attempt()).as("the settlement's takeover").isEqualTo(2);
      assertThat(replay.firstExecutedAt()).isEqualTo(settledAt);
      assertThat(replay.completedAt()).isEqualTo(settledAt);
    }
  }

  @Test
  void aResultSettledOnARowFencedByItsHolderIsTheHoldersAttempt() {
    MutableClock clock = new MutableClock(START);
    HookedStore store = new HookedStore(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      clock.advance(Duration.ofSeconds(1));
      assertThat(gate.markUnknown(holder)).isTrue(); // the holder could not tell: fenced
      assertThat(gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED))).isTrue();

      GateResult.Replayed<String> replay =
          (GateResult.Replayed<String>) retry(gate, runs, GatePolicy.defaults());

      assertThat(replay.settled()).as("stored by the holder's own token").isFalse();
      assertThat(replay.attempt()).isEqualTo(1);
      assertThat(replay.firstExecutedAt()).isEqualTo(START);
      assertThat(runs).hasValue(0);
    }
  }

  @Test
  void aResultTheActionStoredIsNotSettled() {
    MutableClock clock = new MutableClock(START);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(new HookedStore(clock)).build()) {
      retry(gate, runs, GatePolicy.defaults());
      GateResult.Replayed<String> replay =
          (GateResult.Replayed<String>) retry(gate, runs, GatePolicy.defaults());

      assertThat(replay.settled()).isFalse();
      assertThat(replay.attempt()).isEqualTo(1);
      assertThat(runs).hasValue(1);
    }
  }

  /**
   * A settlement that took the key over but could not fence it leaves the row in progress under its
   * own token; a call's reconciler that then finds the effect happened stores the result by that
   * token, and the replay it returns, like every later one, is a settled result.
   */
  @Test
  void aResultAReconcilerStoredUnderASettlementsTakeoverIsSettled() {
    MutableClock clock = new MutableClock(START);
    HookedStore store = new HookedStore(clock);
    AtomicInteger runs = new AtomicInteger();
    GatePolicy reconciling =
        GatePolicy.builder().reconciler((id, key) -> Reconciler.Verdict.happened(REFUNDED)).build();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.failNextMarkUnknown.set(true);
      assertThatThrownBy(
              () -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)))
          .isInstanceOf(StoreUnavailableException.class);
      LeaseToken held = gate.find(CALL.id()).orElseThrow().token();
      assertThat(held.isSettlement()).isTrue();
      GateResult.Refused<String> refused =
          (GateResult.Refused<String>) retry(gate, runs, GatePolicy.defaults());
      assertThat(refused.message())
          .as("attempt 2 is the takeover, under which nothing ran")
          .contains("the outcome of an earlier attempt (before 2, an operator's takeover not yet");

      GateResult<String> reconciled = retry(gate, runs, reconciling);
      GateResult<String> later = retry(gate, runs, GatePolicy.defaults());

      assertThat(runs).hasValue(0);
      assertThat(((GateResult.Replayed<String>) reconciled).settled()).isTrue();
      assertThat(((GateResult.Replayed<String>) later).settled()).isTrue();
      assertThat(later.attempt()).isEqualTo(2);
    }
  }

  /**
   * The reconciler takes its time: the replay it returns tells when the result was stored, the time
   * every later replay tells, not when the call read the row. So it does when the row cannot be
   * read back after the write (the call then claims again and replays what it finds).
   */
  @Test
  void aReconciledReplayTellsTheTimeItsResultWasStored() {
    for (boolean readBackFails : new boolean[] {false, true}) {
      MutableClock clock = new MutableClock(START);
      HookedStore store = new HookedStore(clock);
      AtomicInteger runs = new AtomicInteger();
      GatePolicy slowReconciler =
          GatePolicy.builder()
              .reconciler(
                  (id, key) -> {
                    clock.advance(Duration.ofSeconds(2));
                    store.failFinds.set(readBackFails);
                    return Reconciler.Verdict.happened(REFUNDED);
                  })
              .build();
      try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
        ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
        assertThat(gate.markUnknown(holder)).isTrue();

        GateResult.Replayed<String> reconciled =
            (GateResult.Replayed<String>) retry(gate, runs, slowReconciler);
        store.failFinds.set(false);
        GateResult.Replayed<String> later =
            (GateResult.Replayed<String>) retry(gate, runs, GatePolicy.defaults());

        assertThat(runs).hasValue(0);
        assertThat(reconciled.value()).isEqualTo("refunded");
        assertThat(reconciled.completedAt())
            .as("read back failing: %s", readBackFails)
            .isEqualTo(START.plusSeconds(2))
            .isEqualTo(later.completedAt());
        assertThat(reconciled.firstExecutedAt()).isEqualTo(START);
        assertThat(reconciled.settled()).isFalse();
      }
    }
  }

  @Test
  void onlyASettlementsTokenIsASettlements() {
    for (int i = 0; i < 1000; i++) {
      assertThat(LeaseToken.settlement().isSettlement()).isTrue();
      assertThat(LeaseToken.random().isSettlement()).isFalse();
    }
    assertThat(new LeaseToken("00000000-0000-8000-8000-000000000000").isSettlement()).isTrue();
    assertThat(new LeaseToken("00000000-0000-4000-8000-000000000000").isSettlement()).isFalse();
    assertThat(new LeaseToken("0000000-0000-8000-8000-000000000000").isSettlement()).isFalse();
  }

  private static GateResult<String> retry(
      IdempotencyGate gate, AtomicInteger runs, GatePolicy policy) {
    return gate.withPolicy(policy)
        .execute(
            CALL,
            ResultMapper.utf8(),
            ctx -> {
              runs.incrementAndGet();
              return "refunded again";
            });
  }
}
