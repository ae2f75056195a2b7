package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.store.tck.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * DynamoDB may delete an item any time after its TTL, and a deleted item is a free key to the next
 * claim's {@code PutItem} at once, while a claim's condition counts an item alive until the safety
 * margin after its {@code expires_at}. So every write that sets an item's expiry sets its TTL no
 * earlier than the expiry plus the margin: the TTL deletion never undoes the margin.
 */
class TtlWaitsOutTheSafetyMarginTest {
  private static final String TABLE = "mcpgate_ttl_margin_test";
  private static final Duration MARGIN = Duration.ofMillis(2_500);
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration RETENTION = Duration.ofMinutes(1);

  private static volatile boolean tableReady;

  private final MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
  private DynamoDbClient client;
  private DynamoDbIdempotencyStore store;

  @BeforeEach
  void open() {
    client = TestDynamo.client();
    store =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .clock(clock)
            .leaseSafetyMargin(MARGIN)
            .createSchemaIfMissing(!tableReady)
            .build();
    tableReady = true;
  }

  @AfterEach
  void close() {
    store.close();
    client.close();
  }

  @Test
  void aNewClaimsTtlComesNoEarlierThanItsExpiryPlusTheMargin() {
    ClaimId id = id();
    claim(id, LeaseToken.random());

    assertTtlWaitsOutTheMargin(item(id));
  }

  @Test
  void aTakeoversTtlComesNoEarlierThanItsExpiryPlusTheMargin() {
    ClaimId id = id();
    claim(id, LeaseToken.random());
    clock.advance(LEASE.plus(MARGIN).plusSeconds(1)); // the holder stopped: its lease is over

    assertThat(claim(id, LeaseToken.random())).isInstanceOf(ClaimAttempt.Acquired.class);
    Map<String, AttributeValue> taken = item(id);
    assertThat(taken.get("attempt").n()).isEqualTo("2");
    assertTtlWaitsOutTheMargin(taken);
  }

  @Test
  void anExtensionPastTheExpiryMovesTheTtlWithTheMargin() {
    ClaimId id = id();
    LeaseToken token = LeaseToken.random();
    claim(id, token);

    assertThat(store.extendLease(id, token, Duration.ofMinutes(5))).isTrue();
    Map<String, AttributeValue> raised = item(id);
    assertThat(expires(raised)).as("the expiry moved with the lease").isGreaterThan(retained());
    assertTtlWaitsOutTheMargin(raised);
  }

  @Test
  void aCompletionsAndAFencesTtlComeNoEarlierThanTheirExpiryPlusTheMargin() {
    ClaimId done = id();
    LeaseToken doneToken = LeaseToken.random();
    claim(done, doneToken);
    StoredResult result =
        new StoredResult(StoredResult.Kind.VALUE, "sent".getBytes(StandardCharsets.UTF_8));
    assertThat(store.complete(done, doneToken, result, Duration.ofMinutes(3))).isTrue();
    ClaimId fenced = id();
    LeaseToken fencedToken = LeaseToken.random();
    claim(fenced, fencedToken);
    assertThat(store.markUnknown(fenced, fencedToken, Duration.ofMinutes(7))).isTrue();

    assertTtlWaitsOutTheMargin(item(done));
    assertTtlWaitsOutTheMargin(item(fenced));
  }

  @Test
  void aMarginToTheEndOfTimeGivesTheLastSecondNotATtlBeforeTheExpiry() {
    // review 4: expires + margin wrapped, giving a TTL before the item was written
    try (DynamoDbIdempotencyStore endless =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .clock(clock)
            .leaseSafetyMargin(Duration.ofMillis(Long.MAX_VALUE))
            .build()) {
      ClaimId id = id();
      assertThat(endless.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LEASE, RETENTION)))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      Map<String, AttributeValue> item = item(id);
      assertThat(Long.parseLong(item.get("ttl").n()) * 1000)
          .as("the TTL against expires_at")
          .isGreaterThanOrEqualTo(expires(item));
    }
  }

  @Test
  void aLargerMarginNeverGivesASmallerTtl() {
    // review 5: the saturated TTL was a second below the last unsaturated one
    long expires = 1_924_992_000_000L + 3_600_000L;
    long lastUnsaturated = Long.MAX_VALUE - 999 - expires; // expires + margin + 999 == MAX
    long atTheEdge = ttlOf(lastUnsaturated, expires);
    long saturated = ttlOf(lastUnsaturated + 1, expires);
    assertThat(saturated)
        .as("margin %s gives %s; 1 ms more margin gives %s", lastUnsaturated, atTheEdge, saturated)
        .isGreaterThanOrEqualTo(atTheEdge);
  }

  private static long ttlOf(long marginMs, long expiresMs) {
    return new ClaimItems("pk", "", null, null, "ttl", false, marginMs).ttlSeconds(expiresMs);
  }

  private ClaimAttempt claim(ClaimId id, LeaseToken token) {
    return store.claim(new ClaimRequest(id, "v1:a", token, LEASE, RETENTION));
  }

  private long retained() {
    return clock.millis() + RETENTION.toMillis();
  }

  private static void assertTtlWaitsOutTheMargin(Map<String, AttributeValue> item) {
    long ttlMs = Long.parseLong(item.get("ttl").n()) * 1000;
    assertThat(ttlMs)
        .as("the TTL (%s ms) against expires_at (%s) plus the margin", ttlMs, expires(item))
        .isGreaterThanOrEqualTo(expires(item) + MARGIN.toMillis())
        .isLessThan(expires(item) + MARGIN.toMillis() + 1000);
  }

  private static long expires(Map<String, AttributeValue> item) {
    return Long.parseLong(item.get("expires_at").n());
  }

  private Map<String, AttributeValue> item(ClaimId id) {
    return client
        .getItem(
            g ->
                g.tableName(TABLE)
                    .consistentRead(true)
                    .key(
                        Map.of("pk", AttributeValue.builder().s(store.partitionValue(id)).build())))
        .item();
  }

  private static ClaimId id() {
    return new ClaimId("ttl-margin", "refund", UUID.randomUUID().toString());
  }
}
