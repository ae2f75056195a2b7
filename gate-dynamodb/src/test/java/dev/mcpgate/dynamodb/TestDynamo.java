package dev.mcpgate.dynamodb;

import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finds a real DynamoDB-API server: the endpoint in {@code MCPGATE_TEST_DYNAMODB_ENDPOINT} (CI
 * starts dynalite and sets it), else LocalStack through Testcontainers where Docker runs. Without
 * either the tests are skipped with a message, or fail when {@code MCPGATE_TEST_REQUIRE_ALL=true}.
 * Never a mocked client.
 */
final class TestDynamo {
  private static volatile String endpoint;
  private static volatile String unavailable;
  private static boolean announced;

  private TestDynamo() {}

  /** Counts the requests a client sends. */
  static final class RequestCounter implements ExecutionInterceptor {
    final AtomicInteger requests = new AtomicInteger();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      requests.incrementAndGet();
    }
  }

  static synchronized String endpoint() {
    if (endpoint == null && unavailable == null) {
      String env = System.getenv("MCPGATE_TEST_DYNAMODB_ENDPOINT");
      if (env != null && !env.isBlank()) {
        endpoint = env;
      } else if (dockerAvailable()) {
        try {
          LocalStackContainer localstack =
              new LocalStackContainer(DockerImageName.parse("localstack/localstack:3.8"))
                  .withServices(LocalStackContainer.Service.DYNAMODB);
          localstack.start();
          endpoint = localstack.getEndpoint().toString();
        } catch (RuntimeException e) {
          unavailable = "Testcontainers could not start LocalStack: " + e.getMessage();
        }
      } else {
        unavailable =
            "MCPGATE_TEST_DYNAMODB_ENDPOINT is not set and there is no Docker engine for"
                + " LocalStack (start dynalite: npx dynalite --port 4567, then set the variable)";
      }
    }
    if (!announced) {
      announced = true;
      System.err.println(
          "[mcpgate tests] DynamoDB: "
              + (endpoint != null ? "running on " + endpoint : "SKIPPED, " + unavailable));
    }
    if (endpoint == null) {
      String message = "DynamoDB tests need a real DynamoDB-API server: " + unavailable;
      if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
        Assertions.fail(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      Assumptions.abort(message);
    }
    return endpoint;
  }

  /**
   * A second DynamoDB-API server, apart from {@link #endpoint()}: the endpoint in {@code
   * MCPGATE_TEST_DYNAMODB_SECOND_ENDPOINT} (CI starts a second dynalite and sets it). Without it
   * the test is skipped, or fails when {@code MCPGATE_TEST_REQUIRE_ALL=true}.
   */
  static URI secondEndpoint() {
    endpoint();
    String env = System.getenv("MCPGATE_TEST_DYNAMODB_SECOND_ENDPOINT");
    if (env == null || env.isBlank()) {
      String message =
          "this test needs a second DynamoDB-API server: MCPGATE_TEST_DYNAMODB_SECOND_ENDPOINT is"
              + " not set (start another dynalite: npx dynalite --port 4568, then set it)";
      if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
        Assertions.fail(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      Assumptions.abort(message);
    }
    return URI.create(env);
  }

  static DynamoDbClient client(ExecutionInterceptor... interceptors) {
    return client(URI.create(endpoint()), interceptors);
  }

  /** A client of {@code endpoint}, which may be no DynamoDB at all (a port that never answers). */
  static DynamoDbClient client(URI endpoint, ExecutionInterceptor... interceptors) {
    return DynamoDbClient.builder()
        .endpointOverride(endpoint)
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

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }
}
