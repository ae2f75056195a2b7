package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.net.URI;
import java.time.InstantSource;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Findings (message): {@code verify()}'s renewal-path failure wraps whatever the renewal try threw
 * and adds the advice for a renewal client on another region or endpoint, whatever the cause.
 *
 * <ul>
 *   <li>A renewal client on another endpoint (or region) where the table does not exist: the
 *       message carries the main path's "DynamoDB table ... does not exist; create it with the
 *       builder's createSchemaIfMissing(true) or as docs/stores.md shows": advice that creates a
 *       second table where the renewals go, which turns the failure into renewals that find no
 *       item. Expected: no advice to create the table; the renewal client named as the fault.
 *   <li>A renewal executor that refuses the task: the message says the renewal client "could not
 *       extend a probe lease" and tells the operator to give the renewal client the main client's
 *       region, endpoint and credentials, which are already the same; the executor is the fault.
 * </ul>
 */
class VerifyRenewalAdviceReviewTest {

  @Test
  void aRenewalClientWhereTheTableDoesNotExistIsNotAdvisedToCreateIt() {
    String second = System.getenv("MCPGATE_TEST_DYNAMODB_SECOND_ENDPOINT");
    Assumptions.assumeTrue(second != null && !second.isBlank(), "no second DynamoDB endpoint");
    try (DynamoDbClient main = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbClient elsewhere = ReviewDynamo.client(URI.create(second))) {
      ReviewDynamo.store(main, InstantSource.system()).close(); // the table, on the main server
      Assumptions.assumeFalse(
          elsewhere.listTables().tableNames().contains(ReviewDynamo.TABLE),
          "the second server must not have the review table");
      try (DynamoDbIdempotencyStore store =
          DynamoDbIdempotencyStore.builder(main)
              .tableName(ReviewDynamo.TABLE)
              .renewalClient(elsewhere)
              .build()) {

        Throwable failure = catchThrowable(store::verify);

        assertThat(failure).isInstanceOf(StoreUnavailableException.class);
        assertThat(failure.getMessage())
            .contains("renewal client")
            .contains(second)
            .as("the table exists for the main client: creating it where renewals go is wrong")
            .doesNotContain("createSchemaIfMissing");
      }
    }
  }

  @Test
  void aRenewalExecutorThatRefusesIsNamedNotTheRenewalClientsRegion() {
    try (DynamoDbClient main = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbClient renewals = ReviewDynamo.client(ReviewDynamo.endpoint())) {
      ReviewDynamo.store(main, InstantSource.system()).close();
      try (DynamoDbIdempotencyStore store =
          DynamoDbIdempotencyStore.builder(main)
              .tableName(ReviewDynamo.TABLE)
              .renewalClient(renewals)
              .renewalExecutor(
                  task -> {
                    throw new RejectedExecutionException("review: the pool is full");
                  })
              .build()) {

        Throwable failure = catchThrowable(store::verify);

        assertThat(failure).isInstanceOf(StoreUnavailableException.class);
        assertThat(failure.getMessage())
            .contains("renewal executor refused")
            .as("the renewal client reaches the table; the executor refused")
            .doesNotContain("Give the renewal client the main client's region");
      }
    }
  }
}
