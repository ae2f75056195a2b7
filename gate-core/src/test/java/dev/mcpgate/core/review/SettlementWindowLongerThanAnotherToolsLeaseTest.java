package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review2 of c969866 (OperatorSettlement.takeOver): the window that tells "the row read" from a row
 * claimed afresh since the read is min(1 s, the lease of the policy of the gate that settles). But
 * the attempt that claims afresh meanwhile may run under another policy (another tool, a gate from
 * {@code withPolicy}) whose lease is much shorter than that window: its lease runs out, and the
 * operator's takeover of it is attempt read + 1 within the window, so it passes for the row read.
 *
 * <p>Interleaving (all within 300 ms on the store's clock): attempt 1 (token A) is past its lease;
 * the operator reads it. A wakes, its action failed before the effect, it releases. A retry through
 * a gate whose policy has a 100 ms lease (no renewal) claims afresh (attempt 1, token B), runs the
 * refund and is paused past its 100 ms lease. The operator's takeover writes attempt 2 at 300 ms
 * after the read, inside the 1 s window: the verdict about A ("not happened") frees the key while
 * B's outcome is unknown, and the next retry refunds a second time.
 *
 * <p>The promise: the settlement applies only to the row read. Its takeover now replaces the token
 * read ({@code ClaimRequest.replacing}), so B's row is left exactly as B left it: no verdict, no
 * fence; what becomes of it is what would without the settlement (B's lease rules it). The earlier
 * fix fenced B's row through a takeover timed against the read, which this test first pinned.
 */
class SettlementWindowLongerThanAnotherToolsLeaseTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  @Test
  void aRowClaimedAfreshUnderAShorterLeaseSinceTheReadIsNotSettledByTheVerdictOnTheRowRead() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger refunds = new AtomicInteger();
    AtomicReference<ClaimOutcome> bHolder = new AtomicReference<>();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      IdempotencyGate shortLease =
          gate.withPolicy(
              GatePolicy.builder()
                  .lease(Duration.ofMillis(100))
                  .leaseRenewal(Duration.ZERO)
                  .build());
      ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) gate.claim(CALL); // attempt 1, token A
      clock.advance(Duration.ofSeconds(6)); // A is paused past its 5 s lease
      store.beforeNextClaim.set(
          () -> {
            assertThat(gate.release(a)).isTrue(); // A wakes: its action failed, key freed
            ClaimOutcome b = shortLease.claim(CALL);
            bHolder.set(b); // claimed afresh: attempt 1, token B
            assertThat(b).isInstanceOf(ClaimOutcome.Acquired.class);
            assertThat(((ClaimOutcome.Acquired) b).attempt()).isEqualTo(1);
            refunds.incrementAndGet(); // B refunds
            clock.advance(Duration.ofMillis(300)); // and is paused past its 100 ms lease
          });

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      assertThat(settled).as("the row read (token A) was gone: nothing of it to settle").isFalse();
      ClaimRecord row = gate.find(CALL.id()).orElseThrow();
      ClaimOutcome.Acquired b = (ClaimOutcome.Acquired) bHolder.get();
      assertThat(row.token()).as("B's row, untouched by a verdict about A").isEqualTo(b.token());
      assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
      assertThat(row.attempt()).isEqualTo(1);
      assertThat(refunds).hasValue(1);
    }
  }
}
