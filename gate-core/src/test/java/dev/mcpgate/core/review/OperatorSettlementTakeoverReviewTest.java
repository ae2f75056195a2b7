package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review of 6f157c5 (ClaimSteps.resolveUnknown + fenceToSettle): the operator's settlement of an
 * in-progress row whose lease ran out now takes the row over through the store's claim before it
 * writes. The claim is the store's ordinary claim: it also takes a key that has no row at all, and
 * it kills the holder's token before the settlement is known to succeed.
 */
class OperatorSettlementTakeoverReviewTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  /**
   * The holder's action failed and it released its row between the operator's read and the
   * operator's claim: the key has no row. The store's claim takes a key with no row as a first
   * attempt, so the operator "settles" a key that no longer exists: it writes a new row, stores the
   * operator's result for replay and answers true. IdempotencyGate.resolveUnknown promises "false
   * when there is no row whose outcome is unknown ... The write is conditional on the row read (its
   * token), so a concurrent change wins". Here the concurrent release loses.
   */
  @Test
  void aRowReleasedByItsHolderAfterTheOperatorsReadIsNotRecreatedBySettlement() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6)); // paused past its 5 s lease
      // the holder wakes: its action threw, so it releases its key (a retry should run it)
      store.beforeNextClaim.set(() -> assertThat(gate.release(holder)).isTrue());

      boolean settled =
          gate.resolveUnknown(
              CALL.id(), Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8)));

      assertThat(settled).as("there was no row left to settle").isFalse();
      assertThat(gate.find(CALL.id()))
          .as("the operator wrote a row for a key its holder had freed")
          .isEmpty();
    }
  }

  /**
   * The store fails between the operator's claim and its fence (markUnknown). The operator is told
   * StoreUnavailableException ("could not settle"), but the claim has already happened: the paused
   * holder's token is dead, the row is IN_PROGRESS under a token nobody holds, with a fresh lease.
   * The holder wakes and completes (its effect happened): complete is refused (lease lost), so its
   * result is never stored; one lease later a retry takes the orphan row over and runs the action a
   * second time. Before this change the failed settlement changed nothing and the holder's
   * completion was stored, so the retry was replayed.
   *
   * <p>Fixed by taking the row over under a lease as long as the unknown-outcome fence: a
   * settlement that stops after the takeover leaves the key claimed, and a retry is refused, not
   * run. The holder's completion is refused (its lease was taken over), as after any takeover.
   */
  @Test
  void aSettlementThatFailsBeforeItsFenceNeverLetsTheActionRunTwice() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      runs.incrementAndGet(); // the holder's action runs (the refund is paid)
      clock.advance(Duration.ofSeconds(6)); // the holder is paused past its 5 s lease

      store.failNextMarkUnknown.set(true);
      assertThatThrownBy(
              () ->
                  gate.resolveUnknown(
                      CALL.id(),
                      Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8))))
          .isInstanceOf(StoreUnavailableException.class);

      // the holder wakes and stores its result
      boolean stored = gate.complete(holder, "refunded".getBytes(StandardCharsets.UTF_8), false);

      clock.advance(Duration.ofSeconds(6));
      GateResult<String> retry = retry(gate, runs);

      assertThat(runs).as("the refund ran a second time").hasValue(1);
      // the settlement took the key over before it failed: the holder is told its lease was
      // lost, and the key stays claimed under the fence's lease, so the retry is refused
      assertThat(stored).isFalse();
      assertThat(retry).isInstanceOf(GateResult.Refused.class);
    }
  }

  /**
   * The operator's settlement takes an in-progress row over (attempt 1 becomes attempt 2) and
   * fences it, with no event for either: listeners see only COMPLETED for attempt 2, an attempt
   * that no ACQUIRED (takeover) or MARKED_UNKNOWN event ever introduced. design.md: "Every decision
   * (fresh, replayed, conflict, in_flight, released, takeover, lease_lost) is an event for
   * listeners"; a takeover "is visible to the action and to listeners".
   */
  @Test
  void theOperatorsTakeoverIsAnEventForListeners() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    List<GateEvent> events = new CopyOnWriteArrayList<>();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6)); // its process died
      events.clear();

      assertThat(
              gate.resolveUnknown(
                  CALL.id(),
                  Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8))))
          .isTrue();

      assertThat(gate.find(CALL.id()).orElseThrow().attempt()).isEqualTo(2);
      assertThat(events)
          .as("events of the settlement: %s", events)
          .anySatisfy(
              e -> {
                // not ACQUIRED, which says an action runs: the takeover fences the key
                assertThat(e.type()).isEqualTo(GateEvent.Type.MARKED_UNKNOWN);
                assertThat(e.attempt()).isEqualTo(2);
                assertThat(e.message()).contains("taken over from attempt 1 by an operator");
              });
    }
  }

  /**
   * The operator reads an in-progress row of attempt 1 whose lease ran out. Before the operator's
   * takeover, a retry takes the row over (attempt 2), runs the action and is paused past its own
   * lease. The verdict was about attempt 1 only: the operator's takeover replaces attempt 1's
   * token, so it leaves attempt 2's row as it was (an earlier version took it over as attempt 3 and
   * then released it, freeing the key while attempt 2's outcome was unknown). The answer is false.
   * A holder that released its row between the read and the takeover leaves no row, and none is
   * written ({@link #aRowReleasedByItsHolderAfterTheOperatorsReadIsNotRecreatedBySettlement}).
   */
  @Test
  void aRowTakenOverAgainAfterTheOperatorsReadIsLeftToItsNewHolder() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicReference<ClaimOutcome.Acquired> second = new AtomicReference<>();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1: its process died
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextClaim.set(
          () -> {
            second.set((ClaimOutcome.Acquired) gate.claim(CALL)); // a retry takes over: attempt 2
            clock.advance(Duration.ofSeconds(6)); // and is paused past its lease
          });

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      assertThat(settled).as("the row read (attempt 1) was no longer there to settle").isFalse();
      ClaimRecord row = gate.find(CALL.id()).orElseThrow();
      assertThat(row.attempt()).isEqualTo(2);
      assertThat(row.token()).isEqualTo(second.get().token());
      assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
    }
  }

  /**
   * The store writes the operator's fence and loses its reply: read back, the row is fenced under
   * the settlement's token, so the settlement goes on and stores the verdict.
   */
  @Test
  void aFenceWrittenButUnansweredIsReadBackAndTheSettlementGoesOn() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6)); // its process died
      store.failNextMarkUnknownAfterItsWrite.set(true);

      boolean settled =
          gate.resolveUnknown(
              CALL.id(), Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8)));

      assertThat(settled).isTrue();
      assertThat(retry(gate, runs)).isInstanceOf(GateResult.Replayed.class);
      assertThat(runs).hasValue(0);
    }
  }

  /**
   * The store writes the operator's takeover, loses its reply, and cannot be read back: what
   * happened is not known, and the message says only what holds either way.
   */
  @Test
  void aTakeoverUnansweredAndUnreadableIsToldAsPerhapsWritten() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.failNextClaimAfterItsWrite.set(true);

      assertThatThrownBy(() -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened()))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("did not confirm its takeover: if it was written, the key stays")
          .hasMessageNotContaining("nothing changed");
    }
  }

  /**
   * A retry under a much shorter lease (another policy for the same tool) takes the row over and
   * dies within the moment between the operator's read and takeover: the operator's takeover
   * replaces attempt 1's token only, so attempt 2's row is left as it was, however little time
   * passed (an earlier version told the two apart by time and attempt number).
   */
  @Test
  void aSecondTakeoverWithinTheMomentAfterTheReadIsLeftToItsHolder() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    GatePolicy shortLease =
        GatePolicy.builder()
            .lease(Duration.ofMillis(100))
            .leaseRenewal(Duration.ofMillis(25))
            .build();
    AtomicReference<ClaimOutcome.Acquired> second = new AtomicReference<>();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build();
        IdempotencyGate brief = IdempotencyGate.builder(store).policy(shortLease).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextClaim.set(
          () -> {
            second.set((ClaimOutcome.Acquired) brief.claim(CALL));
            clock.advance(Duration.ofMillis(200)); // its process died too
          });

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      assertThat(settled).isFalse();
      ClaimRecord row = gate.find(CALL.id()).orElseThrow();
      assertThat(row.attempt()).isEqualTo(2);
      assertThat(row.token()).isEqualTo(second.get().token());
      assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
    }
  }

  /** A retry of CALL whose action counts its runs. */
  private static GateResult<String> retry(IdempotencyGate gate, AtomicInteger runs) {
    return gate.execute(
        CALL,
        ResultMapper.utf8(),
        ctx -> {
          runs.incrementAndGet();
          return "refunded again";
        });
  }
}
