package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.StoreUnavailableException;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A read of one try (a per-request plugin) leaves the client's own retries as they were. */
class OneTryReadTest {
  @Test
  void theClientsOwnRequestsStillRetryAfterOneTryReads() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    AtomicInteger tries = new AtomicInteger();
    ExecutionInterceptor count =
        new ExecutionInterceptor() {
          @Override
          public void beforeTransmission(Context.BeforeTransmission c, ExecutionAttributes a) {
            tries.incrementAndGet();
          }
        };
    try (DynamoDbClient down =
        DynamoDbClient.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + port))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
            .overrideConfiguration(
                c -> c.addExecutionInterceptor(count).retryStrategy(RetryMode.STANDARD))
            .build()) {
      Requests requests = new Requests(down, "t");
      Map<String, AttributeValue> key = Map.of("pk", AttributeValue.fromS("k"));
      assertThatThrownBy(() -> requests.get(key, "read", false))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(tries).hasValue(1);
      assertThatThrownBy(() -> requests.get(key, "read", true))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(tries).as("a retried read after a one-try read").hasValue(4);
    }
  }
}
