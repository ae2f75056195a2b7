package dev.mcpgate.dynamodb.review;

import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.LAND_LOSE;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.REFUSE;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.THROTTLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A claim's {@code PutItem} lands and its answer is lost; the read-back of the item then fails too.
 * The request's own claim holds the key for its lease and the safety margin after it, so the
 * failure the caller gets must say that the write may have landed and may hold the key, not only
 * the write's failure (which reads as a claim that did not happen).
 */
class ClaimReadBackFailsTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  /**
   * @param tries the SDK's tries of each request: 1, the lost answer is the last try's; 3, the
   *     retries then find no connection, so only an earlier try may have landed
   */
  @ParameterizedTest(name = "{0} tries")
  @ValueSource(ints = {1, 3})
  void aLandedClaimWhoseItemCannotBeReadIsToldAsOneThatMayHoldTheKey(int tries) {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ScriptedHttp http =
        new ScriptedHttp().script("PutItem", LAND_LOSE).otherwise("PutItem", REFUSE);
    http.otherwise("GetItem", THROTTLE);
    ClaimId id = new ClaimId("review", "claim-unread", UUID.randomUUID().toString());
    LeaseToken token = LeaseToken.random();
    try (DynamoDbClient client =
            ReviewDynamo.client(
                ReviewDynamo.endpoint(),
                b ->
                    b.httpClient(http)
                        .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(tries))));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore reader = ReviewDynamo.store(direct, clock)) {

      Throwable thrown =
          catchThrowable(() -> store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG)));

      assertThat(http.landed).as("the PutItem reached the server, its answer lost").hasValue(1);
      assertThat(http.tries("GetItem")).as("the item was read back").isPositive();
      assertThat(reader.find(id).orElseThrow().token())
          .as("the key is held by this very request's claim")
          .isEqualTo(token);
      assertThat(thrown)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("its write may have landed")
          .hasMessageContaining("could not be read back")
          .hasMessageContaining("the action did not run")
          .hasMessageContaining(
              "the key may stay held by this claim until its lease and the lease safety margin"
                  + " after it end");
      assertThat(thrown.getSuppressed())
          .as("the read's failure is kept")
          .anySatisfy(read -> assertThat(read).hasMessageContaining("read " + id));
    }
  }
}
