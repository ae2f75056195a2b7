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
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Review7 (a gap 5d9a3c6 leaves open). This request's PutItem lands and its answer is lost; the
 * SDK's retry is refused by the condition (the item is this request's own). The server does not
 * return the old item (dynalite), so {@code put} reads it with a GetItem, which is throttled on its
 * one try (a retry strategy that retries I/O failures only; or the SDK's retry quota spent, as
 * under a throttling storm). That failure (one try, a 400) is not one that "may have landed", so
 * {@code readBack} throws it as it is: the caller is told only "could not read", which reads as a
 * claim that did not happen, while the request's own claim holds the key for its lease and the
 * safety margin after it. This is the very case 5d9a3c6 means to tell. Now the next round puts
 * again and is refused by the item; its read fails too, and the failure says the write of the round
 * before may have landed and may hold the key.
 */
class ClaimRefusedOnRetryReadFailsOnceReview7Test {
  private static final Duration LONG = Duration.ofMinutes(10);

  /** Retries I/O failures only, at once: a throttled read is not retried. */
  private static DynamoDbClient client(ScriptedHttp http) {
    return ReviewDynamo.client(
        ReviewDynamo.endpoint(),
        b ->
            b.httpClient(http)
                .overrideConfiguration(
                    c ->
                        c.retryStrategy(
                            DefaultRetryStrategy.standardStrategyBuilder()
                                .maxAttempts(3)
                                .backoffStrategy(BackoffStrategy.retryImmediately())
                                .retryOnException(t -> t instanceof SdkClientException)
                                .useClientDefaults(false)
                                .build())));
  }

  @Test
  void aLandedPutRefusedOnRetryWhoseReadFailsOnceIsAcquiredInTheNextRound() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review7", "refused-on-retry-read-once", UUID.randomUUID().toString());
    ScriptedHttp http =
        new ScriptedHttp()
            .script("PutItem", ScriptedHttp.Fault.LAND_LOSE, ScriptedHttp.Fault.PASS)
            .script("GetItem", ScriptedHttp.Fault.THROTTLE);
    LeaseToken token = LeaseToken.random();
    try (DynamoDbClient client = client(http);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));

      assertThat(http.landed).as("the PutItem reached the server, its answer lost").hasValue(1);
      assertThat(http.tries("GetItem")).as("the failed read, then the next round's").isEqualTo(2);
      assertThat(attempt)
          .as("the next round's put finds the request's own item: its claim, not a failure")
          .isInstanceOfSatisfying(
              ClaimAttempt.Acquired.class, a -> assertThat(a.record().token()).isEqualTo(token));
    }
  }

  @Test
  void aLandedPutRefusedOnRetryWhoseItemCannotBeReadSaysItMayHoldTheKey() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review7", "refused-on-retry-unread", UUID.randomUUID().toString());
    ScriptedHttp http =
        new ScriptedHttp().script("PutItem", ScriptedHttp.Fault.LAND_LOSE, ScriptedHttp.Fault.PASS);
    http.otherwise("GetItem", ScriptedHttp.Fault.THROTTLE);
    LeaseToken token = LeaseToken.random();
    RuntimeException thrown = null;
    LeaseToken holder;
    try (DynamoDbClient client = client(http);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore reader = ReviewDynamo.store(direct, clock)) {
      try {
        store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
      } catch (RuntimeException e) {
        thrown = e;
      }
      holder = reader.find(id).orElseThrow().token();
    }
    assertThat(http.landed).as("the PutItem reached the server, its answer lost").hasValue(1);
    assertThat(http.tries("PutItem"))
        .as("the lost try, the refused retry, then the next round's put, refused by the item")
        .isEqualTo(3);
    assertThat(holder).as("the key is held by this very request's claim").isEqualTo(token);
    assertThat(thrown)
        .as("told as a claim that may hold the key, not as a plain read failure")
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("may have landed")
        .hasMessageContaining("may stay held by this claim");
  }
}
