package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * An outage where the server's address drops connection attempts (connect timeouts, the usual cloud
 * failure: a partition, a security group) rather than refusing them: a try whose connection was
 * never made sent nothing, so the claim's read-back after the SDK's retries is one try, as after
 * refused connections, not a second round of retries.
 */
class BlackholedOutageReadBackReview3Test {
  @Test
  void aBlackholedOutageCostsOneReadMoreNotASecondRoundOfRetries() throws Exception {
    List<Socket> fillers = new ArrayList<>();
    try (ServerSocket full = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      // fill the accept queue: later connection attempts get no answer and time out
      for (int i = 0; i < 8; i++) {
        Socket s = new Socket();
        try {
          s.connect(new InetSocketAddress("127.0.0.1", full.getLocalPort()), 200);
          fillers.add(s);
        } catch (java.io.IOException timedOut) {
          s.close();
          break;
        }
      }
      AtomicInteger getTries = new AtomicInteger();
      AtomicInteger putTries = new AtomicInteger();
      ExecutionInterceptor count =
          new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission c, ExecutionAttributes a) {
              String op =
                  a.getAttribute(
                      software.amazon.awssdk.core.interceptor.SdkExecutionAttribute.OPERATION_NAME);
              ("GetItem".equals(op) ? getTries : putTries).incrementAndGet();
            }
          };
      try (DynamoDbClient down =
              DynamoDbClient.builder()
                  .endpointOverride(URI.create("http://127.0.0.1:" + full.getLocalPort()))
                  .region(Region.US_EAST_1)
                  .credentialsProvider(
                      StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                  .httpClientBuilder(
                      ApacheHttpClient.builder().connectionTimeout(Duration.ofMillis(300)))
                  .overrideConfiguration(
                      c -> c.addExecutionInterceptor(count).retryStrategy(RetryMode.STANDARD))
                  .build();
          DynamoDbIdempotencyStore store =
              DynamoDbIdempotencyStore.builder(down).tableName("t").build()) {
        ClaimRequest r =
            new ClaimRequest(
                new ClaimId("review", "blackholed", UUID.randomUUID().toString()),
                "v1:a",
                LeaseToken.random(),
                Duration.ofMinutes(1),
                Duration.ofMinutes(1));
        assertThatThrownBy(() -> store.claim(r)).isInstanceOf(StoreUnavailableException.class);
        assertThat(putTries).as("the claim's tries").hasValue(3);
        assertThat(getTries).as("the read-back's tries in an outage").hasValue(1);
      }
    } finally {
      for (Socket s : fillers) {
        s.close();
      }
    }
  }
}
