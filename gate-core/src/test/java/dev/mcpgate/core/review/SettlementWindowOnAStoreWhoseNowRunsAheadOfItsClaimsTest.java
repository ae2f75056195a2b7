package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
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
 * Review2 of c969866 (OperatorSettlement.takeOver): the window compares the takeover's createdAt
 * (the clock of the store's claim) with {@code store.now()} read before the find. A store may read
 * these on two clocks: Redis Cluster's {@code now()} is TIME of the connection's default node while
 * a claim's script reads TIME of the node that holds the key. Where {@code now()} runs ahead of the
 * claim's clock by S, the window is 1 s + S long: a row released and claimed afresh since the read,
 * then past its own lease, is taken over as attempt read + 1 "within" the window.
 *
 * <p>Interleaving: as SettlementOfARowRecreatedSinceTheReadLeavesItAloneTest (attempt 1, token A,
 * past its lease, read by the operator; A releases; B claims afresh as attempt 1 and refunds, then
 * is paused past its 5 s lease; the operator's takeover is attempt 2), on a store whose now() is 10
 * s ahead of its claims' clock. The verdict about A ("not happened") frees the key while B's
 * outcome is unknown, and the next retry refunds a second time.
 *
 * <p>The promise: the settlement applies only to the row read. Its takeover now replaces the token
 * read ({@code ClaimRequest.replacing}), so B's row is left exactly as B left it: no verdict, no
 * fence; what becomes of it is what would without the settlement (B's lease rules it). The earlier
 * fix fenced B's row through a takeover timed against the read, which this test first pinned.
 */
class SettlementWindowOnAStoreWhoseNowRunsAheadOfItsClaimsTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  @Test
  void aRowClaimedAfreshSinceTheReadIsNotSettledWhenTheStoresNowRunsAheadOfItsClaims() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    store.nowAhead = Duration.ofSeconds(10); // another node's clock
    AtomicInteger refunds = new AtomicInteger();
    AtomicReference<ClaimOutcome> bHolder = new AtomicReference<>();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired a = (ClaimOutcome.Acquired) gate.claim(CALL); // attempt 1, token A
      clock.advance(Duration.ofSeconds(6)); // A is paused past its 5 s lease
      store.beforeNextClaim.set(
          () -> {
            assertThat(gate.release(a)).isTrue(); // A wakes: its action failed, key freed
            ClaimOutcome b = gate.claim(CALL);
            bHolder.set(b); // a retry claims afresh: attempt 1, token B
            assertThat(b).isInstanceOf(ClaimOutcome.Acquired.class);
            assertThat(((ClaimOutcome.Acquired) b).attempt()).isEqualTo(1);
            refunds.incrementAndGet(); // B refunds
            clock.advance(Duration.ofSeconds(6)); // and is paused past its lease
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
