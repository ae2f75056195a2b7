package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finding (tells the caller something untrue, liveness): the claim's PutItem lands but its answer
 * is lost, and the SDK does not try again (its retries spent, an API call timeout, or a client
 * without retries). The store says "could not claim" (the gate: not executed, safe to retry), but
 * the key is now held by an item of that claim, which nothing runs and nothing renews: the caller's
 * retry is refused as "another attempt is running" (or "stopped responding") for a whole lease. The
 * design: "a failed commit is resolved by reading the claim row back before anything is said".
 *
 * <p>Expected: the store reads the item back after a failed write; holding the request's token it
 * is the request's claim (acquired); else the failure stands and the key is not held by it.
 */
class ClaimAnswerLostUnretriedReviewTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aClaimWhoseAnswerWasLostWithoutARetryIsReadBackNotLeftHoldingTheKey() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client =
            ReviewDynamo.client(
                proxy.endpoint(),
                b -> b.overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimId id = new ClaimId("review", "claim-lost-unretried", UUID.randomUUID().toString());
      LeaseToken token = LeaseToken.random();

      proxy.loseNextAnswers("PutItem", 1);
      ClaimAttempt attempt;
      try {
        attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
      } catch (StoreUnavailableException told) {
        attempt = null;
      }

      assertThat(proxy.lost()).as("the PutItem's answer was lost").isEqualTo(1);
      if (attempt == null) {
        assertThat(store.find(id))
            .as("told 'could not claim', so the key must not be held by this claim")
            .isEmpty();
      } else {
        assertThat(attempt).isInstanceOf(ClaimAttempt.Acquired.class);
        assertThat(attempt.record().token()).isEqualTo(token);
      }
    }
  }
}
