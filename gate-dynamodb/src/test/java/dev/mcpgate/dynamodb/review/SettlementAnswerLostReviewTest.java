package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finding (tells the caller something untrue): the completion's (or the release's) write succeeds
 * on the server but its answer is lost (the connection is cut after the server applied it). The
 * SDK's own retry policy sends the same request again; its condition ({@code lease_token = :t AND
 * state <> 'COMPLETED'}, or an item that is no longer there) now fails because the first try
 * succeeded, and the store answers false: "the token no longer holds the row, nothing was written".
 * The gate then tells the caller {@code LEASE_LOST}: "another attempt had taken over, this result
 * was not stored, the action may have run twice", while the result is stored under this attempt's
 * token and no other attempt exists (a release: the key is free, as asked).
 *
 * <p>The promise: what we tell the caller is true. A completion that finds the item completed by
 * its own write (its token, its result) stored it; a release whose item is gone released it.
 */
class SettlementAnswerLostReviewTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aCompletionWhoseAnswerWasLostAndRetriedIsToldStoredNotLeaseLost() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = ReviewDynamo.client(proxy.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ToolCall call =
          ToolCall.of("review", "complete-lost", UUID.randomUUID().toString(), Map.of("n", 1));
      AtomicInteger runs = new AtomicInteger();
      IdempotencyGate gate = IdempotencyGate.builder(store).build();

      proxy.loseNextAnswers("UpdateItem", 1); // the completion (the action ends before a renewal)
      GateResult<String> result =
          gate.execute(call, ResultMapper.utf8(), ctx -> "refund-" + runs.incrementAndGet());

      assertThat(proxy.lost()).as("the completion's answer was lost").isEqualTo(1);
      assertThat(store.find(call.id()).orElseThrow().state())
          .as("the result is stored")
          .isEqualTo(ClaimState.COMPLETED);
      assertThat(runs).hasValue(1);
      assertThat(result)
          .as("told as stored, not as a lease taken over by another attempt")
          .isInstanceOfSatisfying(
              GateResult.Executed.class,
              e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.STORED));
    }
  }

  @Test
  void aReleaseWhoseAnswerWasLostAndRetriedIsToldReleased() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = ReviewDynamo.client(proxy.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimId id = new ClaimId("review", "release-lost", UUID.randomUUID().toString());
      LeaseToken token = LeaseToken.random();
      store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));

      proxy.loseNextAnswers("DeleteItem", 1);
      boolean released = store.release(id, token);

      assertThat(proxy.lost()).as("the release's answer was lost").isEqualTo(1);
      assertThat(store.find(id)).as("the key is free").isEmpty();
      assertThat(released).as("released by this token, not 'the token no longer held it'").isTrue();
    }
  }
}
