package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

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
}
