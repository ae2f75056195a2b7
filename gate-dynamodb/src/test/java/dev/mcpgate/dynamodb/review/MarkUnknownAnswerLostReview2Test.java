package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Review2 of the lost-answer read backs (454f234, 5a498e5): the completion and the release read
 * back a refusal on the SDK's retry, but the fence ({@code markUnknown}) does not. Its first try
 * lands, its answer is lost, the SDK sends it again, and its condition ({@code lease_token = :t AND
 * state = IN_PROGRESS}) now fails because the first try fenced the row: the store answers false,
 * "the token no longer holds an in-progress row". The engine's own fence (FenceWriter) reads the
 * row back after a refusal; the application-gated {@code IdempotencyGate.markUnknown} (ClaimSteps)
 * and the operator's settlement (OperatorSettlement.fence) do not.
 *
 * <p>The promise: what we tell the caller (or operator) is true. A fence that holds under the
 * caller's own token was written: {@code markUnknown} must answer true (not "another attempt took
 * the lease over", with a LEASE_LOST event), and the settlement must go on and settle the row it
 * took over (not answer false, "the row may have changed since it was read").
 */
class MarkUnknownAnswerLostReview2Test {

  @Test
  void anApplicationFenceWhoseAnswerWasLostIsToldWrittenNotLeaseLost() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = ReviewDynamo.client(proxy.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ToolCall call =
          ToolCall.of("review2", "fence-lost", UUID.randomUUID().toString(), Map.of("n", 1));
      IdempotencyGate gate =
          IdempotencyGate.builder(store)
              .policy(
                  GatePolicy.builder()
                      .lease(Duration.ofMinutes(1))
                      .leaseRenewal(Duration.ZERO)
                      .build())
              .build();
      ClaimOutcome.Acquired claim = (ClaimOutcome.Acquired) gate.claim(call);

      proxy.loseNextAnswers("UpdateItem", 1); // the fence lands; its answer is lost
      boolean marked = gate.markUnknown(claim);

      assertThat(proxy.lost()).as("the fence's answer was lost").isEqualTo(1);
      ClaimRecord row = store.find(call.id()).orElseThrow();
      assertThat(row.state()).isEqualTo(ClaimState.UNKNOWN);
      assertThat(row.token()).as("fenced under this claim's own token").isEqualTo(claim.token());
      assertThat(marked)
          .as("the fence was written by this claim: not 'another attempt took the lease over'")
          .isTrue();
    }
  }

  @Test
  void aSettlementWhoseFenceOfItsTakeoverLostItsAnswerSettlesTheKey() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = ReviewDynamo.client(proxy.endpoint());
        DynamoDbIdempotencyStore dynamo = ReviewDynamo.store(client, clock)) {
      ForwardingIdempotencyStore store =
          new ForwardingIdempotencyStore(dynamo) {
            @Override
            public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
              proxy.loseNextAnswers("UpdateItem", 1); // the takeover's fence: answer lost
              return super.markUnknown(id, token, fence);
            }
          };
      ToolCall call =
          ToolCall.of("review2", "settle-fence-lost", UUID.randomUUID().toString(), Map.of());
      IdempotencyGate gate = IdempotencyGate.builder(store).build();
      assertThat(gate.claim(call)).isInstanceOf(ClaimOutcome.Acquired.class);
      clock.advance(Duration.ofSeconds(30)); // its process died: lease and margin run out

      boolean settled = gate.resolveUnknown(call.id(), Reconciler.Verdict.notHappened());

      assertThat(proxy.lost()).as("the fence's answer was lost").isEqualTo(1);
      assertThat(settled)
          .as(
              "the takeover and its fence were the settlement's own (row now: %s)",
              store.find(call.id()).map(ClaimRecord::state).orElse(null))
          .isTrue();
      assertThat(store.find(call.id())).as("not happened: the fence is lifted").isEmpty();
    }
  }
}
