package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Review7 of 5d9a3c6. Another attempt holds the key on a live lease. This request's PutItem is
 * refused by its condition on its one and only try (it surely did not land). The server does not
 * return the old item (dynalite), so {@code put} reads it with a GetItem, which is throttled on
 * every one of the SDK's tries. That read's failure (3 tries: "earlier tries") goes to {@code
 * readBack}, which reads again, is throttled again, and now tells the caller "its write may have
 * landed ... the key may stay held by this claim until its lease and the lease safety margin after
 * it end". Both are untrue: the write was refused, and the key is the other attempt's. Before
 * 5d9a3c6 the read's failure alone was thrown, which was true.
 */
class ClaimRefusedThenReadFailsReview7Test {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aRefusedPutWhoseItemCannotBeReadIsNotToldAsAWriteThatMayHoldTheKey() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review7", "refused-unread", UUID.randomUUID().toString());
    ScriptedHttp http = new ScriptedHttp();
    http.otherwise("GetItem", ScriptedHttp.Fault.THROTTLE);
    LeaseToken other = LeaseToken.random();
    LeaseToken token = LeaseToken.random();
    RuntimeException thrown = null;
    LeaseToken holder;
    try (DynamoDbClient client =
            ReviewDynamo.client(
                ReviewDynamo.endpoint(),
                b ->
                    b.httpClient(http)
                        .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(3))));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore others = ReviewDynamo.store(direct, clock)) {
      others.claim(new ClaimRequest(id, "v1:a", other, LONG, LONG)); // a live lease
      try {
        store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
      } catch (RuntimeException e) {
        thrown = e;
      }
      holder = others.find(id).orElseThrow().token();
    }
    assertThat(http.tries("PutItem")).as("one PutItem try, refused by its condition").isEqualTo(1);
    assertThat(http.landed).as("nothing of this request's landed").hasValue(0);
    assertThat(holder).as("the key is the other attempt's").isEqualTo(other);
    assertThat(thrown).isInstanceOf(StoreUnavailableException.class);
    assertThat(thrown.getMessage())
        .as("the PutItem was refused: it did not land and holds nothing")
        .doesNotContain("may have landed")
        .doesNotContain("may stay held by this claim");
  }
}
