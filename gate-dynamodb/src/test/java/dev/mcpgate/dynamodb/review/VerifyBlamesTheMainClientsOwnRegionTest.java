package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Finding (low, a message that is not true): when the store has no renewal client of its own, the
 * renewals go through the main client; if the probe's extension then fails (UpdateItem throttled,
 * not allowed, a timeout), {@code TableCheck.verifyRenewals} says so and tells the operator to
 * "Give the renewal client the main client's region, endpoint and credentials" and that "a retry
 * would take its key over": advice about a second client that does not exist, naming the same
 * region and endpoint twice. The Spring starter stops the application with that sentence.
 *
 * <p>Input: a store built without {@code renewalClient}, its client failing every UpdateItem (an
 * interceptor stands for a throttled or forbidden UpdateItem). Expected: a failure that names the
 * failing request (UpdateItem, the main client), without the advice for a renewal client of its
 * own. What happens: the advice to give the renewal client the main client's settings.
 */
class VerifyBlamesTheMainClientsOwnRegionTest {
  private static final String TABLE = "mcpgate_review_verify";

  /** Fails every UpdateItem, as a throttled or forbidden one would. */
  private static final class NoUpdates implements ExecutionInterceptor {
    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      SdkRequest request = context.request();
      if (request instanceof UpdateItemRequest) {
        throw SdkClientException.create("UpdateItem refused (review: throttled or not allowed)");
      }
    }
  }

  private static DynamoDbClient client(ExecutionInterceptor... interceptors) {
    String endpoint = System.getenv("MCPGATE_TEST_DYNAMODB_ENDPOINT");
    Assumptions.assumeTrue(
        endpoint != null && !endpoint.isBlank(), "MCPGATE_TEST_DYNAMODB_ENDPOINT is not set");
    return DynamoDbClient.builder()
        .endpointOverride(URI.create(endpoint))
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("mcpgate", "mcpgate")))
        .overrideConfiguration(
            c -> {
              for (ExecutionInterceptor i : interceptors) {
                c.addExecutionInterceptor(i);
              }
            })
        .build();
  }

  private static void createTable(DynamoDbClient client) throws InterruptedException {
    try {
      client.createTable(
          c ->
              c.tableName(TABLE)
                  .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                  .attributeDefinitions(
                      a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                  .billingMode(BillingMode.PAY_PER_REQUEST));
    } catch (ResourceInUseException exists) {
      // made by an earlier run
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (client.describeTable(d -> d.tableName(TABLE)).table().tableStatus() != TableStatus.ACTIVE
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  @Test
  void aFailedExtensionThroughTheMainClientIsNotBlamedOnAnotherClient() throws Exception {
    try (DynamoDbClient setup = client()) {
      createTable(setup);
    }
    try (DynamoDbClient main = client(new NoUpdates());
        DynamoDbIdempotencyStore store =
            DynamoDbIdempotencyStore.builder(main).tableName(TABLE).build()) {

      assertThatThrownBy(store::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("UpdateItem refused")
          .satisfies(
              e ->
                  org.assertj.core.api.Assertions.assertThat(e.getMessage())
                      .as("the renewal client is the main client")
                      .doesNotContain("Give the renewal client the main client's region"));
    }
  }
}
