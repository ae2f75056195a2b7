package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Review of e61bfe1 (ClaimSteps.fenceToSettle): what the operator is told when a store call of the
 * settlement fails must hold whether the write happened on the server or not (a store can throw
 * after its write: a lost reply, a commit whose answer timed out).
 */
class SettlementMessagesSayOnlyWhatHoldsTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  /**
   * Interleaving: the holder releases its row between the operator's read and claim, so the
   * operator's claim writes a fresh row; the store deletes it on the release and then throws (the
   * reply was lost). The operator is told "the key stays claimed, and a call with it is refused as
   * in progress, until" a time a day away (the unknown fence), but the key is free: the next call
   * runs at once. What the operator is told must be true: the key may stay claimed until then.
   * (Fixed: the row is read back; it is gone, so the answer is false, nothing to settle.)
   */
  @Test
  void aFreshRowWhoseReleaseFailedAfterItsWriteIsNotToldAsSurelyClaimed() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextClaim.set(
          () -> {
            assertThat(gate.release(holder)).isTrue(); // its action failed: the key is free
            store.failNextReleaseAfterItsWrite.set(true);
          });

      Throwable thrown =
          catchThrowable(() -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened()));

      GateResult<String> next = gate.execute(CALL, ResultMapper.utf8(), ctx -> "refunded");
      assertThat(next).as("the key was free after all").isInstanceOf(GateResult.Executed.class);
      // fixed by reading the row back: the release did happen, so there was nothing to settle
      assertThat(thrown).as("told of a claim that is gone").isNull();
    }
  }

  /**
   * Interleaving: the operator reads attempt 1, whose lease ran out; a retry takes the row over
   * (attempt 2), runs and is paused past its lease; the store would fail the operator's fence. An
   * earlier version took attempt 2's row over as attempt 3, and its failed fence's message named
   * attempt 1. The takeover now replaces attempt 1's token only: attempt 2's row is not taken, no
   * fence is written, and nothing is told but false.
   */
  @Test
  void aSecondTakeoverSinceTheReadIsNotTakenAndNothingUntrueIsTold() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1: its process died
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextClaim.set(
          () -> {
            ClaimOutcome second = gate.claim(CALL); // a retry takes over: attempt 2 runs
            assertThat(((ClaimOutcome.Acquired) second).attempt()).isEqualTo(2);
            clock.advance(Duration.ofSeconds(6)); // and is paused past its lease
            store.failNextMarkUnknown.set(true);
          });

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      assertThat(settled).isFalse();
      assertThat(gate.find(CALL.id()).orElseThrow().attempt()).isEqualTo(2);
      assertThat(gate.find(CALL.id()).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    }
  }
}
