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
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Review4 of f24190a (a): {@code ttlSeconds} is {@code floorDiv(expiresAtMs + marginMs + 999,
 * 1000)} without overflow care. The builder takes any non-negative margin whose millis fit a long
 * ({@code Duration.ofMillis(Long.MAX_VALUE)}, "never take over a lease"): the sum wraps and the
 * item's TTL is about 292 million years before the epoch, an expiry before the item was written.
 * (DynamoDB ignores a TTL more than five years in the past, so the item is never deleted; before
 * f24190a the same margin gave a correct TTL.) Low: such margins are unusual; a saturating add (or
 * a bound on the margin in the builder) fixes it.
 */
class TtlOverflowReview4Test {

  @Test
  void aHugeMarginDoesNotWrapTheTtlBeforeTheExpiry() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (DynamoDbClient client = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore ignored = ReviewDynamo.store(client, clock);
        DynamoDbIdempotencyStore store =
            DynamoDbIdempotencyStore.builder(client)
                .tableName(ReviewDynamo.TABLE)
                .clock(clock)
                .leaseSafetyMargin(Duration.ofMillis(Long.MAX_VALUE))
                .build()) {
      ClaimId id = new ClaimId("review4", "ttl-overflow", UUID.randomUUID().toString());
      assertThat(
              store.claim(
                  new ClaimRequest(
                      id, "v1:a", LeaseToken.random(), Duration.ofMinutes(1), Duration.ofHours(1))))
          .isInstanceOf(ClaimAttempt.Acquired.class);

      Map<String, AttributeValue> item =
          client
              .getItem(
                  g ->
                      g.tableName(ReviewDynamo.TABLE)
                          .consistentRead(true)
                          .key(Map.of("pk", AttributeValue.builder().s(pk(id)).build())))
              .item();
      long ttl = Long.parseLong(item.get("ttl").n());
      long expiresAt = Long.parseLong(item.get("expires_at").n());
      assertThat(ttl * 1000)
          .as("the TTL (epoch s %s) against expires_at (%s ms)", ttl, expiresAt)
          .isGreaterThanOrEqualTo(expiresAt);
    }
  }

  /** The item's partition key: no prefix, tenant and tool length-prefixed (ClaimItems). */
  private static String pk(ClaimId id) {
    return id.tenant().length()
        + ":"
        + id.tenant()
        + "|"
        + id.tool().length()
        + ":"
        + id.tool()
        + "|"
        + id.key();
  }
}
