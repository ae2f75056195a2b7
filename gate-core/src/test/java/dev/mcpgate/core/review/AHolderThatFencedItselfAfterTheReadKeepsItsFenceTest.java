package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review of e61bfe1 (ClaimSteps.fenceToSettle): a row its holder fenced as unknown between the
 * operator's read and the operator's takeover is now settled by the operator's verdict. Before
 * e61bfe1 it stayed fenced and the answer was false, as for a holder that renews after the read
 * (OperatorSettlesAHolderThatRenewedMeanwhileTest): a holder that acts after the read wins.
 *
 * <p>Interleaving: the operator looks in the payment provider's dashboard (no refund) and settles
 * "not happened". The holder of attempt 1 was paused, its lease ran out, before its refund call;
 * the operator's read sees that row. The holder wakes, sends the refund call, which times out, and
 * fences its key as unknown. The operator's takeover finds that fence and releases the key by the
 * holder's token, with a verdict that was about the time before the holder woke: the next retry
 * refunds a second time.
 *
 * <p>A fence written after the read is a change of the row since it was read ("the write is
 * conditional on the row read (its token), so a concurrent change wins"), and proof that the holder
 * acted after the verdict was made. The promise, at most once per intent: the row stays fenced, the
 * answer is false, and the operator settles it again once they know what the holder did (a second
 * settlement finds the UNKNOWN row and settles it by its token).
 */
class AHolderThatFencedItselfAfterTheReadKeepsItsFenceTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  @Test
  void aFenceItsHolderWroteAfterTheOperatorsReadIsNotLiftedByTheVerdict() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger refunds = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6)); // paused past its 5 s lease, before its refund call
      store.beforeNextClaim.set(
          () -> {
            refunds.incrementAndGet(); // the holder wakes and sends the refund call: it times out
            assertThat(gate.markUnknown(holder)).isTrue(); // and fences its key
          });

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      GateResult<String> retry =
          gate.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                refunds.incrementAndGet();
                return "refunded again";
              });
      assertThat(refunds).as("the holder's refund call may have gone through").hasValue(1);
      assertThat(settled).as("the holder acted after the read: its fence stands").isFalse();
      assertThat(retry).isInstanceOf(GateResult.Refused.class);
      assertThat(gate.find(CALL.id()).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
    }
  }
}
