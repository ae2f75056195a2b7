package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.StoreUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * {@link DynamoDbIdempotencyStore#verify()} on real DynamoDB-API servers: the table's key schema,
 * the warning when TTL is off, and the renewal path checked with a probe item, which is never left
 * behind. The renewal client that reaches another table of the same name is on a second server.
 */
class DynamoDbVerifyTest {
  private static final String TABLE = "mcpgate_verify_test";

  private DynamoDbClient client;

  @BeforeEach
  void setUp() {
    client = TestDynamo.client();
    createTable(client, TABLE, "pk");
  }

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void verifyPassesOnAGoodStoreAndLeavesNoProbeItem() {
    try (DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(client).tableName(TABLE).build()) {
      Set<String> before = probes(store);

      store.verify();

      assertThat(probes(store)).as("probe items after verify").isEqualTo(before);
    }
  }

  @Test
  void verifyWarnsWhenTtlIsNotEnabledAndStillPasses() {
    assertThat(client.describeTimeToLive(d -> d.tableName(TABLE)).timeToLiveDescription())
        .as("TTL of the test table (dynalite never enables it)")
        .satisfies(t -> assertThat(t.timeToLiveStatus()).isNotEqualTo(TimeToLiveStatus.ENABLED));
    PrintStream err = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    try (DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(client).tableName(TABLE).build()) {
      System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
      store.verify();
    } finally {
      System.setErr(err);
    }

    assertThat(logged.toString(StandardCharsets.UTF_8))
        .contains("WARN")
        .contains("TTL of DynamoDB table " + TABLE)
        .contains("not enabled on attribute ttl");
  }

  @Test
  void verifyWarnsWhenRenewalsShareTheMainClientUnlessToldTo() {
    String shared = "lease renewals go through the main DynamoDbClient";
    assertThat(verifyLog(DynamoDbIdempotencyStore.builder(client).tableName(TABLE)))
        .as("renewals through the main client by default")
        .contains("WARN")
        .contains(shared);
    assertThat(
            verifyLog(
                DynamoDbIdempotencyStore.builder(client).tableName(TABLE).renewalClient(client)))
        .as("the main client given as the renewal client: a choice, not a default")
        .doesNotContain(shared);
    try (DynamoDbClient renewal = TestDynamo.client()) {
      assertThat(
              verifyLog(
                  DynamoDbIdempotencyStore.builder(client).tableName(TABLE).renewalClient(renewal)))
          .as("a renewal client of its own")
          .doesNotContain(shared);
    }
  }

  @Test
  void verifyWarnsOnAGlobalTableWithEventuallyConsistentReplicasOnly() {
    String global = "global table with eventually consistent replicas (us-east-1, eu-west-1)";
    try (DynamoDbClient eventual = describedAsGlobal(null);
        DynamoDbClient strong = describedAsGlobal(MultiRegionConsistency.STRONG)) {
      assertThat(
              verifyLog(
                  DynamoDbIdempotencyStore.builder(eventual)
                      .tableName(TABLE)
                      .renewalClient(eventual)))
          .contains("WARN")
          .contains("DynamoDB table " + TABLE + " is a " + global);
      assertThat(
              verifyLog(
                  DynamoDbIdempotencyStore.builder(strong).tableName(TABLE).renewalClient(strong)))
          .as("multi-Region strong consistency: a conditional write sees every Region's")
          .doesNotContain("global table");
    }
    assertThat(verifyLog(DynamoDbIdempotencyStore.builder(client).tableName(TABLE)))
        .as("a table of one Region")
        .doesNotContain("global table");
  }

  /**
   * A client of the test server whose DescribeTable answers say the table has replicas in two
   * Regions, of this consistency (null: the default, eventual), as a global table's do.
   */
  private static DynamoDbClient describedAsGlobal(MultiRegionConsistency consistency) {
    ExecutionInterceptor replicas =
        new ExecutionInterceptor() {
          @Override
          public SdkResponse modifyResponse(
              Context.ModifyResponse context, ExecutionAttributes attributes) {
            if (!(context.response() instanceof DescribeTableResponse described)) {
              return context.response();
            }
            return described.toBuilder()
                .table(
                    described.table().toBuilder()
                        .replicas(r -> r.regionName("us-east-1"), r -> r.regionName("eu-west-1"))
                        .multiRegionConsistency(consistency)
                        .build())
                .build();
          }
        };
    return TestDynamo.client(replicas);
  }

  private static String verifyLog(DynamoDbIdempotencyStore.Builder builder) {
    PrintStream err = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    try (DynamoDbIdempotencyStore store = builder.build()) {
      System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
      store.verify();
    } finally {
      System.setErr(err);
    }
    return logged.toString(StandardCharsets.UTF_8);
  }

  @Test
  void verifyPassesWithARenewalClientOfTheSameServer() {
    try (DynamoDbClient renewal = TestDynamo.client();
        DynamoDbIdempotencyStore store =
            DynamoDbIdempotencyStore.builder(client)
                .tableName(TABLE)
                .renewalClient(renewal)
                .build()) {
      Set<String> before = probes(store);

      store.verify();

      assertThat(probes(store)).as("probe items after verify").isEqualTo(before);
    }
  }

  @Test
  void aRenewalClientOnAnotherServerWithATableOfTheSameNameFailsAndTheProbeIsReleased() {
    URI second = TestDynamo.secondEndpoint();
    try (DynamoDbClient elsewhere = TestDynamo.client(second);
        DynamoDbIdempotencyStore store =
            DynamoDbIdempotencyStore.builder(client)
                .tableName(TABLE)
                .renewalClient(elsewhere)
                .build()) {
      createTable(elsewhere, TABLE, "pk");
      Set<String> before = probes(store);

      assertThatThrownBy(store::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("renewal client")
          .hasMessageContaining(TABLE)
          .hasMessageContaining(second.toString())
          .hasMessageContaining("does not find the probe item")
          .hasMessageContaining("lease lost");
      assertThat(probes(store)).as("probe items on the main table").isEqualTo(before);
    }
  }

  @Test
  void aRenewalClientThatCannotConnectFailsAndTheProbeIsReleased() {
    URI nowhere = URI.create("http://127.0.0.1:1");
    try (DynamoDbClient unreachable = TestDynamo.client(nowhere);
        DynamoDbIdempotencyStore store =
            DynamoDbIdempotencyStore.builder(client)
                .tableName(TABLE)
                .renewalClient(unreachable)
                .build()) {
      Set<String> before = probes(store);

      assertThatThrownBy(store::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("renewal client")
          .hasMessageContaining(nowhere.toString())
          .hasMessageContaining("could not extend a probe lease");
      assertThat(probes(store)).as("probe items on the main table").isEqualTo(before);
    }
  }

  @Test
  void aTableWithAnotherPartitionKeyFailsNamingBoth() {
    String table = "mcpgate_verify_other_keys";
    createTable(client, table, "id");
    try (DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(client).tableName(table).build()) {
      assertThatThrownBy(store::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(table)
          .hasMessageContaining("partition key id (S)")
          .hasMessageContaining("partition key pk (S)");
    }
  }

  @Test
  void aTableWithoutTheBuildersSortKeyFailsNamingIt() {
    try (DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .sortKey("sk", "IDEMPOTENCY")
            .build()) {
      assertThatThrownBy(store::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(TABLE)
          .hasMessageContaining("has the key schema partition key pk (S), no sort key")
          .hasMessageContaining("built for partition key pk (S), sort key sk (S)");
    }
  }

  @Test
  void aMissingTableFailsNamingIt() {
    String table = "mcpgate_verify_missing_" + UUID.randomUUID();
    try (DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(client).tableName(table).build()) {
      assertThatThrownBy(store::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("DynamoDB table " + table + " does not exist")
          .hasMessageContaining("createSchemaIfMissing");
    }
  }

  @Test
  void anUnreachableServerFailsAsUnavailable() {
    try (DynamoDbClient nowhere = TestDynamo.client(URI.create("http://127.0.0.1:1"));
        DynamoDbIdempotencyStore store =
            DynamoDbIdempotencyStore.builder(nowhere).tableName(TABLE).build()) {
      assertThatThrownBy(store::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(TABLE);
    }
  }

  /**
   * @return the partition key values of the probe items in the store's table
   */
  private Set<String> probes(DynamoDbIdempotencyStore store) {
    String key = "k";
    String value =
        store.partitionValue(new ClaimId(TableCheck.PROBE_TENANT, TableCheck.PROBE_TOOL, key));
    String prefix = value.substring(0, value.length() - key.length());
    return client
        .scanPaginator(
            s ->
                s.tableName(store.tableName())
                    .consistentRead(true)
                    .filterExpression("begins_with(pk, :p)")
                    .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(prefix))))
        .items()
        .stream()
        .map(item -> item.get("pk").s())
        .collect(Collectors.toSet());
  }

  /**
   * Creates the table if it is not there, and waits until it is active: polled here, since the
   * SDK's waiter waits 20 s between looks.
   */
  static void createTable(DynamoDbClient client, String table, String partitionKey) {
    try {
      client.createTable(
          c ->
              c.tableName(table)
                  .keySchema(k -> k.attributeName(partitionKey).keyType(KeyType.HASH))
                  .attributeDefinitions(
                      a -> a.attributeName(partitionKey).attributeType(ScalarAttributeType.S))
                  .billingMode(BillingMode.PAY_PER_REQUEST));
    } catch (ResourceInUseException exists) {
      // made by an earlier test
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (client.describeTable(d -> d.tableName(table)).table().tableStatus()
        != TableStatus.ACTIVE) {
      assertThat(System.nanoTime()).as("table %s active in time", table).isLessThan(deadline);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
