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
 * Review of e61bfe1 (ClaimSteps.fenceToSettle): when the operator's takeover finds an UNKNOWN row,
 * the settlement takes it for "the holder fenced its own row" when its attempt number equals the
 * read's ({@code now.attempt() == read.attempt()}), and settles it by that row's token. The attempt
 * number does not name an attempt: a key released and claimed afresh starts again at 1.
 *
 * <p>Interleaving: attempt 1 (token A) is paused past its lease; the operator reads it. A wakes,
 * its action failed, it releases its key. A retry claims the key afresh (attempt 1, token B), its
 * refund call times out, and it fences the key as unknown (markUnknown). The operator's takeover
 * finds that UNKNOWN row of attempt 1 and settles it, by B's token, with the verdict given about A
 * ("not happened"): the fence is lifted and the next retry refunds a second time.
 *
 * <p>The promise: at most once per intent; IdempotencyGate.resolveUnknown, "the write is
 * conditional on the row read (its token), so a concurrent change wins". B's row is not the row
 * read: it stays fenced and the answer is false.
 */
class AnUnknownRowOfAnotherAttemptIsNotSettledByTheReadTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  @Test
  void anUnknownRowWithTheReadAttemptsNumberButAnotherTokenStaysFenced() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger refunds = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) gate.claim(CALL); // attempt 1, token A
      clock.advance(Duration.ofSeconds(6)); // A is paused past its 5 s lease
      store.beforeNextClaim.set(
          () -> {
            assertThat(gate.release(a)).isTrue(); // A wakes: its action failed, key freed
            ClaimOutcome.Acquired b = (ClaimOutcome.Acquired) gate.claim(CALL); // attempt 1
            assertThat(b.attempt()).isEqualTo(1);
            refunds.incrementAndGet(); // B's refund call is sent, and times out
            assertThat(gate.markUnknown(b)).isTrue(); // B fences the key: outcome unknown
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
      assertThat(refunds).as("B's outcome is unknown: the refund must not run again").hasValue(1);
      assertThat(settled).as("the row read (token A) was gone: nothing of it to settle").isFalse();
      assertThat(retry).isInstanceOf(GateResult.Refused.class);
      assertThat(gate.find(CALL.id()).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
    }
  }
}
