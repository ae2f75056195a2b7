package dev.mcpgate.dynamodb;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.dynamodb.DynamoDbServiceClientConfiguration;
import software.amazon.awssdk.services.dynamodb.endpoints.DynamoDbEndpointProvider;

/**
 * The renewal client a store makes for itself when it is given none: the main client's region,
 * endpoint, credentials and override configuration (retry policy, timeouts, interceptors), on an
 * HTTP client and connection pool of its own, the SDK's default for the classpath. So the gate's
 * renewals never wait for a connection behind the application's requests on the main client.
 */
final class OwnRenewalClient {
  private OwnRenewalClient() {}

  /**
   * @param main the store's main client
   * @return a new client the store owns and closes
   * @throws IllegalStateException if the SDK cannot build one (for example, several HTTP client
   *     implementations on the classpath), saying to give one with {@code renewalClient}
   */
  static DynamoDbClient like(DynamoDbClient main) {
    DynamoDbServiceClientConfiguration config = main.serviceClientConfiguration();
    DynamoDbClientBuilder builder =
        DynamoDbClient.builder()
            .region(config.region())
            .credentialsProvider(config.credentialsProvider())
            .overrideConfiguration(config.overrideConfiguration());
    config.endpointOverride().ifPresent(builder::endpointOverride);
    config
        .endpointProvider()
        .filter(DynamoDbEndpointProvider.class::isInstance)
        .map(DynamoDbEndpointProvider.class::cast)
        .ifPresent(builder::endpointProvider);
    if (config.authSchemeProvider() != null) {
      builder.authSchemeProvider(config.authSchemeProvider());
    }
    try {
      return builder.build();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "the DynamoDB store could not make a renewal client of its own from the main client's"
              + " settings ("
              + e.getMessage()
              + "); give it one with DynamoDbIdempotencyStore.Builder.renewalClient, on an HTTP"
              + " client of its own (docs/stores.md)",
          e);
    }
  }
}
