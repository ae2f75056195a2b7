package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finding (tells the caller something untrue, and a liveness cost): the claim's write succeeds on
 * the server but its answer is lost (the connection is cut after the server applied it). The SDK's
 * own retry policy sends the same request again; its condition now fails because the first try took
 * the key, and the store reads back the caller's own fresh item and answers {@code Existing} (an
 * attempt in flight). The gate then tells the caller "in progress, retry later" about a call that
 * nothing runs, and the key stays blocked by an orphan claim until its lease runs out (the retry
 * after that is a takeover, attempt 2, told to the action as one).
 *
 * <p>The promise: the claim is one atomic write, and what the caller is told is true. An item that
 * holds the request's own token is the request's own claim: {@code Acquired}, attempt as written.
 */
class ClaimAnswerLostReviewTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aClaimWhosePutItemAnswerWasLostAndRetriedIsAcquiredNotInFlight() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = ReviewDynamo.client(proxy.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimId id = new ClaimId("review", "claim-lost", UUID.randomUUID().toString());
      LeaseToken token = LeaseToken.random();

      proxy.loseNextAnswers("PutItem", 1);
      ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));

      assertThat(proxy.lost()).as("the first PutItem's answer was lost").isEqualTo(1);
      assertThat(store.find(id).orElseThrow().token())
          .as("the key is held by this very request's token")
          .isEqualTo(token);
      assertThat(attempt)
          .as("the request's own claim, told as acquired, not as another attempt in flight")
          .isInstanceOfSatisfying(
              ClaimAttempt.Acquired.class,
              a -> {
                assertThat(a.record().token()).isEqualTo(token);
                assertThat(a.record().attempt()).isEqualTo(1);
              });
    }
  }

  @Test
  void aTakeoverWhoseUpdateItemAnswerWasLostAndRetriedIsAcquiredNotInFlight() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = ReviewDynamo.client(proxy.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimId id = new ClaimId("review", "takeover-lost", UUID.randomUUID().toString());
      LeaseToken stale = LeaseToken.random();
      store.claim(new ClaimRequest(id, "v1:a", stale, Duration.ofSeconds(1), LONG));
      clock.advance(Duration.ofSeconds(5)); // the holder stopped renewing: its lease ran out

      LeaseToken token = LeaseToken.random();
      proxy.loseNextAnswers("UpdateItem", 1);
      ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));

      assertThat(proxy.lost()).as("the takeover UpdateItem's answer was lost").isEqualTo(1);
      assertThat(store.find(id).orElseThrow().token())
          .as("the key is held by this very request's token")
          .isEqualTo(token);
      assertThat(attempt)
          .as("the request's own takeover, told as acquired, not as another attempt in flight")
          .isInstanceOfSatisfying(
              ClaimAttempt.Acquired.class,
              a -> {
                assertThat(a.record().token()).isEqualTo(token);
                assertThat(a.record().attempt()).isEqualTo(2);
              });
    }
  }
}
