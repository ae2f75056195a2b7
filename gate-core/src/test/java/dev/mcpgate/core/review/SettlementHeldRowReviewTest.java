package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.ClaimId;
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
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review of 9e52465 (a settlement takes over under a token of its own, a random UUID of version 8,
 * and a row it holds is settled by the next settlement, or by a call's reconciler, by that token).
 * Since that change someone else may write by the settlement's token while the settlement is still
 * live (between its takeover and its fence, or between its fence and its verdict): what the
 * settlement then tells its operator must still be true.
 */
class SettlementHeldRowReviewTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
  private static final byte[] REFUNDED = "refunded".getBytes(StandardCharsets.UTF_8);
  private static final byte[] REFUNDED_TWICE = "refunded twice".getBytes(StandardCharsets.UTF_8);

  /**
   * HookedStore with a few more hooks: steps run after a claim's write, before a fence/complete.
   */
  static final class MoreHookedStore extends HookedStore {
    /** Run after the next claim by a settlement's token was written; then its reply is lost. */
    final AtomicReference<Runnable> afterNextSettlementClaimWriteThenFail = new AtomicReference<>();

    final AtomicReference<Runnable> beforeNextMarkUnknown = new AtomicReference<>();
    final AtomicReference<Runnable> beforeNextComplete = new AtomicReference<>();

    MoreHookedStore(InstantSource clock) {
      super(clock);
    }

    @Override
    public ClaimAttempt claim(ClaimRequest request) {
      ClaimAttempt attempt = super.claim(request);
      if (request.replacing() != null) { // the settlement's takeover
        Runnable hook = afterNextSettlementClaimWriteThenFail.getAndSet(null);
        if (hook != null) {
          hook.run();
          throw new StoreUnavailableException("reply lost (injected, after the write)", null);
        }
      }
      return attempt;
    }

    @Override
    public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
      Runnable hook = beforeNextMarkUnknown.getAndSet(null);
      if (hook != null) {
        hook.run();
      }
      return super.markUnknown(id, token, fence);
    }

    @Override
    public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      Runnable hook = beforeNextComplete.getAndSet(null);
      if (hook != null) {
        hook.run();
      }
      return super.complete(id, token, result, retention);
    }
  }

  /**
   * Interleaving: attempt 1 dies; settlement A takes its row over and the store stays unreachable
   * ({@code claim}: the takeover's reply is lost and A cannot read it back; {@code fence}: the
   * fence fails before its write, and A reads the row back in progress by its token). A is told "a
   * call with it is refused as in progress" until a day on. Since 9e52465 a call with it is refused
   * as an unknown outcome (or settled by the reconciler), never as in progress: the message the
   * operator acts on is not true.
   */
  @ParameterizedTest
  @ValueSource(strings = {"claim", "fence"})
  void anUnconfirmedSettlementIsNotToldThatCallsAreRefusedAsInProgress(String failed) {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1: refunds, and its process dies
      clock.advance(Duration.ofSeconds(6));
      if (failed.equals("claim")) {
        store.failNextClaimAfterItsWrite.set(true); // and every find fails
      } else {
        store.beforeNextClaim.set(() -> store.failNextMarkUnknown.set(true)); // read back: unfenced
      }
      Throwable told =
          catchThrowable(
              () -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)));
      store.failFinds.set(false);

      ClaimOutcome call = gate.claim(CALL);

      assertThat(told).isInstanceOf(StoreUnavailableException.class);
      assertThat(call)
          .isInstanceOfSatisfying(
              ClaimOutcome.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN));
      assertThat(told.getMessage())
          .as("what the operator was told of calls meanwhile")
          .doesNotContain("refused as in progress");
    }
  }

  /**
   * Interleaving: attempt 1 dies; settlement A's takeover is written and its reply lost; before A
   * reads it back, settlement B reads A's row (held by a settlement token: settled at once) and
   * releases it with "did not happen"; A reads back, finds no row by its token, and tells its
   * operator "the store did not confirm its takeover, which was not written; nothing changed". The
   * takeover was written and the key was settled (freed) meanwhile: before 9e52465 nobody could
   * write by A's token while its lease ran, and an empty read back meant not written.
   */
  @Test
  void aTakeoverSettledByASecondSettlementBeforeItsReadBackIsNotToldNotWritten() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    MoreHookedStore store = new MoreHookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      AtomicReference<Boolean> secondSettled = new AtomicReference<>();
      store.afterNextSettlementClaimWriteThenFail.set(
          () ->
              secondSettled.set(gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened())));

      Throwable told =
          catchThrowable(
              () -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)));

      assertThat(secondSettled.get()).as("B settled A's row by A's token").isTrue();
      assertThat(gate.find(CALL.id())).as("the key is free").isEmpty();
      assertThat(told == null ? "" : told.getMessage())
          .as("what A's operator was told")
          .doesNotContain("was not written; nothing changed");
    }
  }

  /**
   * The same with a call's reconciler in B's place: the call meets A's row (held by a settlement
   * token), its reconciler says "did not happen", the fence is lifted by A's token, and the call
   * claims again and refunds. A is told its takeover was not written and nothing changed, while the
   * action ran again meanwhile.
   */
  @Test
  void aTakeoverReleasedByACallsReconcilerBeforeItsReadBackIsNotToldNothingChanged() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    MoreHookedStore store = new MoreHookedStore(clock);
    AtomicInteger refunds = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .reconciler((id, key) -> Reconciler.Verdict.notHappened())
                    .build())
            .build()) {
      gate.claim(CALL);
      refunds.incrementAndGet();
      clock.advance(Duration.ofSeconds(6));
      AtomicReference<GateResult<String>> call = new AtomicReference<>();
      store.afterNextSettlementClaimWriteThenFail.set(
          () ->
              call.set(
                  gate.execute(
                      CALL,
                      ResultMapper.utf8(),
                      ctx -> {
                        refunds.incrementAndGet();
                        return "refunded";
                      })));

      Throwable told =
          catchThrowable(
              () -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)));

      assertThat(call.get()).isInstanceOf(GateResult.Executed.class);
      assertThat(told == null ? "" : told.getMessage())
          .as("what A's operator was told, after the key was released and the action ran again")
          .doesNotContain("nothing changed");
    }
  }

  /**
   * Interleaving: settlement A (happened) took attempt 1's row over; just before its fence,
   * settlement B reads A's row and completes it by A's token; A's fence then fails and the read
   * back finds the row completed. A is told "it was taken over ... but not fenced as unknown; it
   * stays claimed, and a call with it is refused as in progress, until" a day on: the key is
   * completed, and a call replays.
   */
  @Test
  void aTakeoverCompletedByASecondSettlementBeforeItsFenceIsNotToldStillClaimed() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    MoreHookedStore store = new MoreHookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextMarkUnknown.set(
          () -> {
            assertThat(gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)))
                .isTrue();
            store.failNextMarkUnknown.set(true);
          });

      Throwable told =
          catchThrowable(
              () -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)));

      assertThat(gate.find(CALL.id()).orElseThrow().state()).isEqualTo(ClaimState.COMPLETED);
      assertThat(gate.claim(CALL)).isInstanceOf(ClaimOutcome.Replayed.class);
      assertThat(told == null ? "" : told.getMessage())
          .as("what A's operator was told of a key that is completed")
          .doesNotContain("stays claimed");
    }
  }

  /**
   * Interleaving: settlement A (happened, result "refunded") took the row over and fenced it;
   * before its completion, settlement B (happened, "refunded twice") completes the row by A's
   * token. A's completion is refused; A reads the row back by its token, finds it completed and
   * answers true, "its result is stored": the stored result is B's. (Open before 9e52465 too, for a
   * B that read A's fenced row, or a call's reconciler; 9e52465 widens it to A's takeover. The
   * Redis store's own COMPLETE script answers 1 on a completed row only for the very same result.)
   */
  @Test
  void aSettlementWhoseCompletionWasRefusedIsNotToldItsResultIsStoredWhenAnotherWas() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    MoreHookedStore store = new MoreHookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextComplete.set(
          () ->
              assertThat(
                      gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED_TWICE)))
                  .isTrue());

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED));

      GateResult<String> retry =
          gate.execute(CALL, ResultMapper.utf8(), ctx -> "refunded a third time");
      assertThat(retry)
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("refunded twice"));
      assertThat(settled).as("A told its result 'refunded' was stored").isFalse();
    }
  }
}
