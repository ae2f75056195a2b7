package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The SDK's URL-connection HTTP client over the JDK's {@code HttpURLConnection}: a write whose
 * answer is lost (applied, then the connection cut) is settled truly, whichever layer sends it
 * again (the JDK may resend a POST on its own, unseen by the SDK's attempt count, on a connection
 * it kept alive: the completion follows the claim's requests, on one the client may keep). Seen
 * here: the SDK's own retry sends both again.
 */
class UrlConnectionAnswerLostTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aClaimAndACompletionWhoseAnswersWereLostAreTheRequestsOwn() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client =
            ReviewDynamo.client(
                proxy.endpoint(), b -> b.httpClient(UrlConnectionHttpClient.create()));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimId id = new ClaimId("review", "url-connection", UUID.randomUUID().toString());
      LeaseToken token = LeaseToken.random();

      proxy.loseNextAnswers("PutItem", 1);
      ClaimAttempt claim = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
      assertThat(proxy.lost()).isEqualTo(1);
      assertThat(claim).isInstanceOf(ClaimAttempt.Acquired.class);

      proxy.loseNextAnswers("UpdateItem", 1);
      StoredResult result =
          new StoredResult(StoredResult.Kind.VALUE, "sent".getBytes(StandardCharsets.UTF_8));
      boolean completed = store.complete(id, token, result, LONG);
      assertThat(proxy.lost()).isEqualTo(2);
      assertThat(store.find(id).orElseThrow().state()).isEqualTo(ClaimState.COMPLETED);
      assertThat(completed).as("the completion stored the result: told so").isTrue();
    }
  }
}
