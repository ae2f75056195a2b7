package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finding (tells the caller something untrue, low): with {@code compressResults(true)} a result of
 * up to {@link DynamoDbIdempotencyStore#MAX_RESULT_BYTES} that does not compress (already gzipped,
 * encrypted, random ids) grows by gzip's framing past the limit, and the store refuses it with
 * {@code ResultTooLargeException} ("over the 350000 bytes that fit"), although the same bytes
 * stored as they are fit. The gate then fences the key as "ran, result not stored": every retry is
 * refused instead of replayed, only because compression was turned on.
 *
 * <p>Expected: a result that fits uncompressed is stored (uncompressed when gzip does not help).
 */
class IncompressibleResultReviewTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void anIncompressibleResultThatFitsUncompressedIsStoredWithCompressionOn() {
    try (DynamoDbClient client = ReviewDynamo.client(ReviewDynamo.endpoint())) {
      ReviewDynamo.store(client, InstantSource.system()).close(); // the review table exists
      try (DynamoDbIdempotencyStore store =
          DynamoDbIdempotencyStore.builder(client)
              .tableName(ReviewDynamo.TABLE)
              .compressResults(true)
              .build()) {
        ClaimId id = new ClaimId("review", "incompressible", UUID.randomUUID().toString());
        LeaseToken token = LeaseToken.random();
        store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
        byte[] body = new byte[DynamoDbIdempotencyStore.MAX_RESULT_BYTES - 10];
        new Random(7).nextBytes(body); // random bytes: gzip only adds its framing

        boolean stored =
            store.complete(id, token, new StoredResult(StoredResult.Kind.VALUE, body), LONG);

        assertThat(stored).isTrue();
        assertThat(store.find(id).orElseThrow().result().body()).isEqualTo(body);
      }
    }
  }
}
