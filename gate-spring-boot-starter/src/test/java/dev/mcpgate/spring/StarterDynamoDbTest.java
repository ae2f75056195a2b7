package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * {@code mcpgate.store=dynamodb}: the starter verifies the DynamoDB store at startup, on a real
 * DynamoDB-API server (the one {@code MCPGATE_TEST_DYNAMODB_ENDPOINT} names; {@code .ci/run} starts
 * dynalite and sets it). Without it the tests are skipped, or fail when {@code
 * MCPGATE_TEST_REQUIRE_ALL=true}. Never a mock.
 */
class StarterDynamoDbTest {
  private DynamoDbClient client;

  @BeforeEach
  void setUp() {
    client =
        DynamoDbClient.builder()
            .endpointOverride(URI.create(required("MCPGATE_TEST_DYNAMODB_ENDPOINT")))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("mcpgate", "mcpgate")))
            .build();
  }

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void aDynamoDbStoreWhoseTableHasTheKeysStarts() {
    createTable("mcpgate_boot_dynamo", "pk");
    try (ConfigurableApplicationContext app = server("mcpgate_boot_dynamo").run()) {
      assertThat(app.getBean(dev.mcpgate.core.spi.IdempotencyStore.class))
          .isInstanceOf(dev.mcpgate.dynamodb.DynamoDbIdempotencyStore.class);
    }
  }

  @Test
  void aDynamoDbTableWithOtherKeysStopsTheStartupUnlessVerifySchemaIsOff() {
    createTable("mcpgate_boot_dynamo_other_keys", "id");
    assertThatThrownBy(() -> server("mcpgate_boot_dynamo_other_keys").run().close())
        .hasStackTraceContaining("MCP Gate could not use its DynamoDB store at startup")
        .hasStackTraceContaining("mcpgate_boot_dynamo_other_keys")
        .hasStackTraceContaining("partition key id (S)")
        .hasStackTraceContaining("mcpgate.create-schema-if-missing=true creates a missing table")
        .hasStackTraceContaining("mcpgate.verify-schema=false");
    // with the table created when missing, the advice to create it is no advice
    assertThatThrownBy(
            () ->
                server("mcpgate_boot_dynamo_other_keys")
                    .properties("mcpgate.create-schema-if-missing=true")
                    .run()
                    .close())
        .hasStackTraceContaining("partition key id (S)")
        .hasStackTraceContaining("mcpgate.verify-schema=false")
        .satisfies(
            e ->
                assertThat(stackTrace(e))
                    .doesNotContain("mcpgate.create-schema-if-missing=true creates"));

    try (ConfigurableApplicationContext app =
        server("mcpgate_boot_dynamo_other_keys").properties("mcpgate.verify-schema=false").run()) {
      assertThat(app.getBean(dev.mcpgate.core.spi.IdempotencyStore.class))
          .isInstanceOf(dev.mcpgate.dynamodb.DynamoDbIdempotencyStore.class);
    }
  }

  /** The refund server on the DynamoDB store of {@code table}, with the client as its bean. */
  private SpringApplicationBuilder server(String table) {
    return SpringBootStarterTest.server(
            "mcpgate.store=dynamodb",
            "mcpgate.table-name=" + table,
            "mcpgate.create-schema-if-missing=false",
            "mcpgate.audit.enabled=false")
        .initializers(c -> c.getBeanFactory().registerSingleton("dynamoDbClient", client));
  }

  /** Creates the table if it is not there, and waits until it is active (polled here). */
  private void createTable(String table, String partitionKey) {
    try {
      client.createTable(
          c ->
              c.tableName(table)
                  .keySchema(k -> k.attributeName(partitionKey).keyType(KeyType.HASH))
                  .attributeDefinitions(
                      a -> a.attributeName(partitionKey).attributeType(ScalarAttributeType.S))
                  .billingMode(BillingMode.PAY_PER_REQUEST));
    } catch (ResourceInUseException exists) {
      // made by an earlier run
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

  private static String stackTrace(Throwable e) {
    java.io.StringWriter out = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  private static String required(String variable) {
    String value = System.getenv(variable);
    if (value == null || value.isBlank()) {
      String message =
          "the starter's DynamoDB tests need a DynamoDB-API server: " + variable + " is not set";
      System.err.println("[mcpgate tests] Spring Boot starter on DynamoDB: SKIPPED, " + message);
      if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
        Assertions.fail(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      Assumptions.abort(message);
    }
    return value;
  }
}
