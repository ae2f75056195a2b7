package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finding (runs twice, under a configuration the builder accepts silently): the builder takes any
 * name for the TTL attribute (and the partition and sort keys), also one of the names the store
 * writes itself. A single-table layout whose TTL attribute is called {@code expires_at} (a common
 * name) gets {@code ttlAttribute("expires_at")}: the new item's {@code expires_at} (epoch ms) is
 * overwritten by the TTL's epoch seconds, so every claim is expired the moment it is written, and a
 * second call with the same key takes it while the first still runs: the action runs twice. (A
 * partition key named {@code tenant} or {@code state} breaks the item's key the same way.)
 *
 * <p>The promise: at most once per intent. Expected: the builder refuses an attribute name the item
 * already uses for something else, or at least a live claim is not free to take.
 */
class AttributeNameCollisionReviewTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aTtlAttributeNamedAsOneOfTheItemsOwnAttributesNeverFreesALiveClaim() {
    try (DynamoDbClient client = ReviewDynamo.client(ReviewDynamo.endpoint())) {
      ReviewDynamo.store(client, InstantSource.system()).close(); // the review table exists
      DynamoDbIdempotencyStore store;
      try {
        store =
            DynamoDbIdempotencyStore.builder(client)
                .tableName(ReviewDynamo.TABLE)
                .ttlAttribute("expires_at")
                .build();
      } catch (IllegalArgumentException refused) {
        assertThat(refused).hasMessageContaining("expires_at");
        return; // refused at build: the store never writes such items
      }
      try (store) {
        ClaimId id = new ClaimId("review", "ttl-collision", UUID.randomUUID().toString());
        LeaseToken first = LeaseToken.random();
        assertThat(store.claim(new ClaimRequest(id, "v1:a", first, LONG, LONG)))
            .isInstanceOf(ClaimAttempt.Acquired.class);

        // the same intent again, while the first holds a ten-minute lease
        ClaimAttempt second =
            store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG));

        assertThat(second)
            .as("a second claim of a key whose first attempt holds a live lease")
            .isInstanceOf(ClaimAttempt.Existing.class);
      }
    }
  }
}
