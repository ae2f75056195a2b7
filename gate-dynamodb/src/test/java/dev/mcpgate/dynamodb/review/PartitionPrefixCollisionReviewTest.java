package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finding (tells the caller something untrue; contrived configuration, low): the partition key is
 * {@code prefix + len(tenant) + ":" + tenant + "|" + len(tool) + ":" + tool + "|" + key}. The
 * length prefixes make one store's values unambiguous, but the prefix itself is not delimited: two
 * stores sharing a table (a single-table layout) with prefixes where one is the other followed by
 * digits ({@code "G"} and {@code "G1"}, {@code "app1"} and {@code "app11"}) can map two identities
 * onto one item, e.g. {@code ("a|7:toolxyz", "ref", "k")} under {@code "G"} and {@code ("a",
 * "toolxyz", "3:ref|k")} under {@code "G1"} both give {@code "G11:a|7:toolxyz|3:ref|k"}. The second
 * store then finds the first's completed item: a replay of another identity's result (same argument
 * hash) or a conflict, and its own action never runs.
 *
 * <p>Expected: distinct identities of distinct stores never share an item. The fix changes the
 * stored partition key format (a delimiter after the prefix, or the prefix's length): left to the
 * maintainers.
 */
class PartitionPrefixCollisionReviewTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void identitiesOfTwoStoresWithNestedPrefixesNeverTakeEachOthersItem() {
    try (DynamoDbClient client = ReviewDynamo.client(ReviewDynamo.endpoint())) {
      ReviewDynamo.store(client, InstantSource.system()).close(); // the review table exists
      String run = Long.toString(System.nanoTime() % 1000); // a fresh prefix pair per run
      String g = "G" + run;
      try (DynamoDbIdempotencyStore first =
              DynamoDbIdempotencyStore.builder(client)
                  .tableName(ReviewDynamo.TABLE)
                  .partitionKeyPrefix(g)
                  .build();
          DynamoDbIdempotencyStore second =
              DynamoDbIdempotencyStore.builder(client)
                  .tableName(ReviewDynamo.TABLE)
                  .partitionKeyPrefix(g + "1")
                  .build()) {
        String k = UUID.randomUUID().toString();
        // under g: g + "11:" + "a|7:toolxyz" + "|" + "3:ref" + "|" + k
        ClaimId a = new ClaimId("a|7:toolxyz", "ref", k);
        // under g + "1": g + "1" + "1:" + "a" + "|" + "7:toolxyz" + "|" + "3:ref|" + k
        ClaimId b = new ClaimId("a", "toolxyz", "3:ref|" + k);
        LeaseToken token = LeaseToken.random();
        assertThat(first.claim(new ClaimRequest(a, "v1:same", token, LONG, LONG)))
            .isInstanceOf(ClaimAttempt.Acquired.class);
        first.complete(
            a,
            token,
            new StoredResult(StoredResult.Kind.VALUE, "a's".getBytes(StandardCharsets.UTF_8)),
            LONG);

        // the item is the same (the stored format is kept): the second store must not take the
        // first one's claim for its own, nor replay its result, but fail, naming the overlap
        assertThatThrownBy(
                () -> second.claim(new ClaimRequest(b, "v1:same", LeaseToken.random(), LONG, LONG)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("holds the claim of")
            .hasMessageContaining("prefix");
        assertThatThrownBy(() -> second.find(b)).isInstanceOf(IllegalStateException.class);
        assertThat(first.find(a).orElseThrow().state()).isEqualTo(ClaimState.COMPLETED);
      }
    }
  }
}
