package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/** The review tests' real server (dynalite, {@code MCPGATE_TEST_DYNAMODB_ENDPOINT}) and table. */
final class ReviewDynamo {
  static final String TABLE = "mcpgate_review_dynamo";
  private static volatile boolean tableReady;

  private ReviewDynamo() {}

  static URI endpoint() {
    String endpoint = System.getenv("MCPGATE_TEST_DYNAMODB_ENDPOINT");
    Assumptions.assumeTrue(
        endpoint != null && !endpoint.isBlank(), "MCPGATE_TEST_DYNAMODB_ENDPOINT is not set");
    return URI.create(endpoint);
  }

  /** A client with the SDK's default retry policy, of {@code endpoint}. */
  static DynamoDbClient client(URI endpoint) {
    return client(endpoint, b -> {});
  }

  /** A client of the review server that sends its requests through {@code http}. */
  static DynamoDbClient client(SdkHttpClient http) {
    return client(endpoint(), b -> b.httpClient(http));
  }

  /** A client of {@code endpoint} (region and test credentials set), as {@code more} adds to it. */
  static DynamoDbClient client(URI endpoint, Consumer<DynamoDbClientBuilder> more) {
    DynamoDbClientBuilder b =
        DynamoDbClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("mcpgate", "mcpgate")));
    more.accept(b);
    return b.build();
  }

  /** A store of the review table through {@code client}, the table made once. */
  static DynamoDbIdempotencyStore store(DynamoDbClient client, InstantSource clock) {
    ensureTable();
    return DynamoDbIdempotencyStore.builder(client).tableName(TABLE).clock(clock).build();
  }

  /**
   * A client of the review table (made first) that sends through {@code http}, each API call
   * bounded at 2 s.
   */
  static DynamoDbClient boundedClient(SdkHttpClient http) {
    ensureTable();
    return client(
        endpoint(),
        b ->
            b.httpClient(http).overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(2))));
  }

  /** Claims a new key of {@code tool} for 30 s: its lease. */
  static HeldLease claimed(DynamoDbIdempotencyStore store, String tool) {
    ClaimId id = new ClaimId("review-r4", tool, UUID.randomUUID().toString());
    LeaseToken token = LeaseToken.random();
    assertThat(
            store.claim(
                new ClaimRequest(
                    id, "v1:a", token, Duration.ofSeconds(30), Duration.ofMinutes(10))))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    return new HeldLease(id, token);
  }

  private static void ensureTable() {
    if (!tableReady) {
      try (DynamoDbClient direct = client(endpoint())) {
        DynamoDbIdempotencyStore.builder(direct)
            .tableName(TABLE)
            .createSchemaIfMissing(true)
            .build()
            .close();
      }
      tableReady = true;
    }
  }
}
