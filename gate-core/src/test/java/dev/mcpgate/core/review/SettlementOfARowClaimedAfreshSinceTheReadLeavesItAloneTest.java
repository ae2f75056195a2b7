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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Reviews of e61bfe1 and c969866 (the settlement's takeover): a row released and claimed afresh
 * since the operator's read starts again at attempt 1, so its takeover is attempt 2, the same
 * number as a takeover of the row read. The interim fix told them apart by a window of time after
 * the read, which a claim under a shorter lease (another tool's policy) or a store whose {@code
 * now()} runs ahead of its claims' clock slipped through.
 *
 * <p>Interleaving: attempt 1 (token A) is paused past its lease; the operator reads it. A wakes,
 * its action failed, it releases its key. A retry claims the key afresh (attempt 1, token B), runs
 * the refund and is paused past its own lease. The operator's takeover then came, with a verdict
 * about A ("not happened").
 *
 * <p>The promise: the settlement applies only to the row read. Its takeover replaces the token read
 * ({@code ClaimRequest.replacing}), so B's row is left exactly as B left it: no verdict, no fence;
 * what becomes of it is what would without the settlement (B's lease rules it).
 */
class SettlementOfARowClaimedAfreshSinceTheReadLeavesItAloneTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final HookedStore store = new HookedStore(clock);

  @Test
  void aRowClaimedAfreshUnderTheSameLeaseIsLeftAlone() {
    settleWhileBClaimsAfresh(GatePolicy.defaults(), Duration.ofSeconds(6));
  }

  @Test
  void aRowClaimedAfreshUnderAShorterLeaseIsLeftAlone() {
    GatePolicy brief =
        GatePolicy.builder().lease(Duration.ofMillis(100)).leaseRenewal(Duration.ZERO).build();
    settleWhileBClaimsAfresh(brief, Duration.ofMillis(300));
  }

  @Test
  void aRowClaimedAfreshIsLeftAloneOnAStoreWhoseNowRunsAhead() {
    store.nowAhead = Duration.ofSeconds(10); // another node's clock
    settleWhileBClaimsAfresh(GatePolicy.defaults(), Duration.ofSeconds(6));
  }

  /** B claims under {@code policyOfB} and is paused {@code pauseOfB} before the takeover. */
  private void settleWhileBClaimsAfresh(GatePolicy policyOfB, Duration pauseOfB) {
    AtomicReference<ClaimOutcome.Acquired> b = new AtomicReference<>();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      IdempotencyGate gateOfB = gate.withPolicy(policyOfB);
      ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) gate.claim(CALL); // attempt 1, token A
      clock.advance(Duration.ofSeconds(6)); // A is paused past its 5 s lease
      store.beforeNextClaim.set(
          () -> {
            assertThat(gate.release(a)).isTrue(); // A wakes: its action failed, key freed
            b.set((ClaimOutcome.Acquired) gateOfB.claim(CALL)); // claimed afresh: token B
            clock.advance(pauseOfB); // B refunds and is paused past its lease
          });

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      assertThat(settled).as("the row read (token A) was gone: nothing of it to settle").isFalse();
      ClaimRecord row = gate.find(CALL.id()).orElseThrow();
      assertThat(row.token())
          .as("B's row, untouched by a verdict about A")
          .isEqualTo(b.get().token());
      assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
      assertThat(row.attempt()).isEqualTo(1);
    }
  }
}
