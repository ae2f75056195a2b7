package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A claim replacing a token (an operator's settlement) whose takeover's answer was lost. Its item,
 * read back, holding the request's own token (no longer the one it replaced) is the request's
 * claim: acquired, never another attempt's row. Where the item is gone, the claim is absent: it
 * writes only over the item that holds the token it replaces, never a new item.
 */
class LostAnswerReplacingClaimTest {
  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final Duration LONG = Duration.ofMinutes(10);

  private final MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));

  /** A client of {@code endpoint} that never retries, through {@code http} when not null. */
  private static DynamoDbClient unretried(URI endpoint, SdkHttpClient http) {
    return ReviewDynamo.client(
        endpoint,
        b -> {
          b.overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()));
          if (http != null) {
            b.httpClient(http);
          }
        });
  }

  /** A key claimed by {@code read}, whose lease then ran out: a settlement may replace it. */
  private ClaimId heldByAStoppedAttempt(DynamoDbIdempotencyStore store, LeaseToken read) {
    ClaimId id = new ClaimId("review", "replacing-lost", UUID.randomUUID().toString());
    assertThat(store.claim(new ClaimRequest(id, "v1:a", read, LEASE, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    clock.advance(Duration.ofSeconds(10)); // past the lease and the safety margin
    return id;
  }

  /** The SDK sends the lost takeover again, and its retry is refused: the item is already its. */
  @Test
  void aReplacingClaimWhoseTakeoverAnswerWasLostAndRetriedIsAcquired() throws Exception {
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = ReviewDynamo.client(proxy.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      LeaseToken read = LeaseToken.random();
      ClaimId id = heldByAStoppedAttempt(store, read);
      LeaseToken token = LeaseToken.random();

      proxy.loseNextAnswers("UpdateItem", 1);
      ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG, read));

      assertThat(proxy.lost()).as("the takeover's answer was lost").isEqualTo(1);
      assertThat(store.find(id).orElseThrow().token()).isEqualTo(token);
      assertThat(attempt)
          .as("the request's own takeover, not another attempt's row")
          .isInstanceOfSatisfying(
              ClaimAttempt.Acquired.class,
              a -> {
                assertThat(a.record().token()).isEqualTo(token);
                assertThat(a.record().attempt()).isEqualTo(2);
              });
    }
  }

  /** The SDK does not send it again: the store reads the item back. */
  @Test
  void aReplacingClaimWhoseTakeoverAnswerWasLostUnretriedIsReadBackAsAcquired() throws Exception {
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient client = unretried(proxy.endpoint(), null);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      LeaseToken read = LeaseToken.random();
      ClaimId id = heldByAStoppedAttempt(store, read);
      LeaseToken token = LeaseToken.random();

      proxy.loseNextAnswers("UpdateItem", 1);
      ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG, read));

      assertThat(proxy.lost()).as("the takeover's answer was lost").isEqualTo(1);
      assertThat(store.find(id).orElseThrow().token()).isEqualTo(token);
      assertThat(attempt).isInstanceOf(ClaimAttempt.Acquired.class);
      assertThat(attempt.record().token()).isEqualTo(token);
      assertThat(attempt.record().attempt()).isEqualTo(2);
    }
  }

  /**
   * The takeover fails with a server error, not applied, while the attempt it replaces releases the
   * key; the SDK does not send it again, and the read back finds no item: absent, and no item is
   * written.
   */
  @Test
  void aReplacingClaimWhoseItemIsGoneWhenItsTakeoverFailedIsAbsentAndWritesNoItem() {
    ServerErrorBeforeApplyHttpClient http = new ServerErrorBeforeApplyHttpClient();
    try (DynamoDbClient faulty = unretried(ReviewDynamo.endpoint(), http);
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(faulty, clock);
        DynamoDbIdempotencyStore holder = ReviewDynamo.store(direct, clock)) {
      LeaseToken read = LeaseToken.random();
      ClaimId id = heldByAStoppedAttempt(holder, read);

      http.failNextBeforeApply(
          "UpdateItem", () -> assertThat(holder.release(id, read)).as("released").isTrue());
      ClaimAttempt attempt =
          store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG, read));

      assertThat(attempt).isInstanceOf(ClaimAttempt.Absent.class);
      assertThat(attempt.record()).isNull();
      assertThat(holder.find(id)).as("no item written").isEmpty();
    }
  }
}
