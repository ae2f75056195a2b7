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
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review of ClaimSteps.fenceToSettle as of e61bfe1: the operator's takeover is the store's claim,
 * under a lease as long as the unknown fence (a day by default). A store can throw after its write
 * (the reply was lost): the row is then taken over by the settlement's token, which nobody holds.
 *
 * <p>Interleaving: attempt 1 refunded and its process died; the operator settles "happened". The
 * takeover is written but its reply is lost: the operator is told "could not settle" and tries
 * again. The second settlement reads an IN_PROGRESS row under a live lease and answers false, "no
 * unknown outcome to settle (... in progress under a live lease, whose attempt may be running)": no
 * attempt runs, and the operator cannot settle the key for a day, during which every retry is
 * refused. design.md, "A failed commit is resolved by reading the claim row back before anything is
 * said": the settlement reads back whether its takeover was written before it answers, and goes on
 * from there; a settlement tried again settles the key.
 */
class SettlementRetriedAfterItsTakeoverFailedSettlesTheKeyTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
  private static final byte[] REFUNDED = "refunded".getBytes(StandardCharsets.UTF_8);

  @Test
  void aSettlementTriedAgainAfterItsTakeoverWasWrittenButUnansweredSettlesTheKey() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    AtomicBoolean failNextClaimAfterItsWrite = new AtomicBoolean();
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create(clock)) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            ClaimAttempt attempt = super.claim(request);
            if (failNextClaimAfterItsWrite.getAndSet(false)) {
              throw new StoreUnavailableException("reply lost (injected, after the write)", null);
            }
            return attempt;
          }
        };
    AtomicInteger refunds = new AtomicInteger();
    byte[] refunded = "refunded".getBytes(StandardCharsets.UTF_8);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired first = (ClaimOutcome.Acquired) gate.claim(CALL);
      assertThat(first.attempt()).isEqualTo(1);
      refunds.incrementAndGet(); // attempt 1 refunds; its process dies
      clock.advance(Duration.ofSeconds(6));

      failNextClaimAfterItsWrite.set(true);
      boolean settled;
      try {
        // a settlement that reads its takeover back goes on and settles here
        settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(refunded));
      } catch (StoreUnavailableException e) { // "could not settle": the operator tries again
        clock.advance(Duration.ofMinutes(1));
        settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(refunded));
      }

      GateResult<String> retry =
          gate.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                refunds.incrementAndGet();
                return "refunded again";
              });
      assertThat(refunds).hasValue(1);
      assertThat(settled)
          .as("no attempt runs: the row is the settlement's own takeover, still to settle")
          .isTrue();
      assertThat(retry).isInstanceOf(GateResult.Replayed.class);
    }
  }

  /**
   * The same, when the store stays unreachable for the read back too, so the settlement cannot know
   * whether its takeover was written ({@code claim}), or whether its fence of the takeover was
   * ({@code fence}): the operator is told that the key may stay claimed for the unknown fence (a
   * day). An earlier version then answered every later settlement false, "in progress under a live
   * lease": the operator could not settle the key for a day, and every retry was refused as
   * "another attempt is running", which none was. A row held by a settlement's own token is
   * settled, and refused, as one fenced as unknown, since no action ever runs under it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"claim", "fence"})
  void aSettlementTriedAgainAfterItCouldNotReadItsTakeoverBackSettlesTheKey(String failed) {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger refunds = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      settlementStopsUnconfirmed(gate, store, clock, refunds, failed);

      assertThat(gate.claim(CALL))
          .as("a call meanwhile: nothing runs under the settlement's token")
          .isInstanceOfSatisfying(
              ClaimOutcome.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN));
      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED));

      GateResult<String> retry =
          gate.execute(CALL, ResultMapper.utf8(), ctx -> refundAgain(refunds));
      assertThat(settled).isTrue();
      assertThat(retry).isInstanceOf(GateResult.Replayed.class);
      assertThat(refunds).hasValue(1);
    }
  }

  /** The same row, met by a call whose policy has a reconciler: the reconciler settles it. */
  @Test
  void aRowHeldByAStoppedSettlementIsSettledByTheReconciler() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger refunds = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .reconciler((id, downstreamKey) -> Reconciler.Verdict.happened(REFUNDED))
                    .build())
            .build()) {
      settlementStopsUnconfirmed(gate, store, clock, refunds, "claim");

      GateResult<String> retry =
          gate.execute(CALL, ResultMapper.utf8(), ctx -> refundAgain(refunds));

      assertThat(retry)
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("refunded"));
      assertThat(refunds).hasValue(1);
    }
  }

  /**
   * A store of one's own may hand back a row under a token that is no UUID (one it minted in a
   * test, say): it is an attempt's, in progress, and neither counts as a settlement's nor fails.
   */
  @Test
  void aRowUnderATokenShorterThanAUuidIsStillInProgress() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    store.claim(
        new ClaimRequest(
            CALL.id(),
            ArgumentHasher.hash(CALL.arguments(), Set.of()),
            new LeaseToken("t-1"),
            Duration.ofSeconds(5),
            Duration.ofHours(1)));
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      assertThat(gate.claim(CALL))
          .isInstanceOfSatisfying(
              ClaimOutcome.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS));
      assertThat(gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened())).isFalse();
    }
  }

  /**
   * Attempt 1 refunds and its process dies; an operator's settlement takes its row over and the
   * store fails ({@code failed}: its takeover's reply is lost, or its fence is refused) and stays
   * unreachable for the read back; then the store is back, a minute on.
   */
  private static void settlementStopsUnconfirmed(
      IdempotencyGate gate,
      HookedStore store,
      MutableClock clock,
      AtomicInteger refunds,
      String failed) {
    gate.claim(CALL);
    refunds.incrementAndGet();
    clock.advance(Duration.ofSeconds(6));
    if (failed.equals("claim")) {
      store.failNextClaimAfterItsWrite.set(true); // and every find fails
    } else {
      store.beforeNextClaim.set( // after the settlement's read
          () -> {
            store.failNextMarkUnknown.set(true);
            store.failFinds.set(true);
          });
    }
    assertThatThrownBy(() -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("settle it again");
    store.failFinds.set(false);
    assertThat(gate.find(CALL.id()).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    clock.advance(Duration.ofMinutes(1)); // the settlement's lease is a day long
  }

  private static String refundAgain(AtomicInteger refunds) {
    refunds.incrementAndGet();
    return "refunded again";
  }

  /**
   * The guard of the test above is the settlement's own token only: an attempt's row under a live
   * lease is still not settled (its action may be running).
   */
  @Test
  void aLiveAttemptsRowIsStillNotSettled() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(1)); // its lease runs on

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      assertThat(settled).isFalse();
      assertThat(gate.find(CALL.id()).orElseThrow().attempt()).isEqualTo(1);
      assertThat(gate.find(CALL.id()).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    }
  }
}
