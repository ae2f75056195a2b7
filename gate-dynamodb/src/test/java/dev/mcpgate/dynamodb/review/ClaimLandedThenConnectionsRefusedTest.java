package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A claim's first try lands and its answer is lost; the SDK's retries of it then find no
 * connection. The last try's failure (connection refused) says the request never reached the
 * server, but the first one did: the store must read the item back and find its own claim, not tell
 * the caller the store was unreachable while an in-progress item of its own blocks the key until
 * its lease runs out.
 */
class ClaimLandedThenConnectionsRefusedTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aClaimThatLandedOnAnEarlierTryIsReadBackThoughTheLastTryFoundNoConnection() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    LandsThenRefuses http = new LandsThenRefuses();
    try (DynamoDbClient client = ReviewDynamo.client(http);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimId id = new ClaimId("review", "landed-then-refused", UUID.randomUUID().toString());
      LeaseToken token = LeaseToken.random();

      ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));

      assertThat(http.putsApplied).as("the first PutItem reached the server").hasValue(1);
      assertThat(http.putsRefused).as("its retries found no connection").hasPositiveValue();
      assertThat(attempt)
          .as("the request's own claim, read back, not a store failure")
          .isInstanceOfSatisfying(
              ClaimAttempt.Acquired.class, a -> assertThat(a.record().token()).isEqualTo(token));
    }
  }

  /**
   * Sends the first PutItem and loses its answer; refuses every later PutItem's connection; passes
   * every other request through.
   */
  private static final class LandsThenRefuses implements SdkHttpClient {
    private final SdkHttpClient delegate = ApacheHttpClient.create();
    final AtomicInteger putsApplied = new AtomicInteger();
    final AtomicInteger putsRefused = new AtomicInteger();

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      String target = request.httpRequest().firstMatchingHeader("X-Amz-Target").orElse("");
      if (!target.endsWith(".PutItem")) {
        return delegate.prepareRequest(request);
      }
      ExecutableHttpRequest real = delegate.prepareRequest(request);
      return new ExecutableHttpRequest() {
        @Override
        public HttpExecuteResponse call() throws IOException {
          if (putsApplied.get() > 0) {
            putsRefused.incrementAndGet();
            throw new ConnectException("injected: connection refused");
          }
          HttpExecuteResponse answer = real.call();
          putsApplied.incrementAndGet();
          if (answer.responseBody().isPresent()) {
            answer.responseBody().get().close();
          }
          throw new IOException("injected: the connection was cut before the answer");
        }

        @Override
        public void abort() {
          real.abort();
        }
      };
    }

    @Override
    public String clientName() {
      return "lands-then-refuses";
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
