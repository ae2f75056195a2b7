package dev.mcpgate.dynamodb.review;

import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.HANG;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.LAND_LOSE;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.PASS;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.REFUSE;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.THROTTLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.core.metrics.CoreMetric;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.metrics.MetricCollection;
import software.amazon.awssdk.metrics.MetricPublisher;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The claim's read-back after a write whose first try landed (answer lost): one GetItem without the
 * SDK's retries, through a per-request plugin, when the later tries reached no server, whatever
 * retries the client is configured with; with them otherwise.
 */
class ReadBackOneTryReview3Test {
  private static final Duration LONG = Duration.ofMinutes(10);

  private static DynamoDbClient client(
      ScriptedHttp http, Consumer<ClientOverrideConfiguration.Builder> override) {
    return ReviewDynamo.client(
        ReviewDynamo.endpoint(), b -> b.httpClient(http).overrideConfiguration(override));
  }

  @SuppressWarnings("deprecation")
  static Stream<Arguments> configurations() {
    return Stream.of(
        Arguments.of(
            "default (DynamoDB's legacy mode)",
            (Consumer<ClientOverrideConfiguration.Builder>) c -> {}),
        Arguments.of(
            "retryStrategy(STANDARD)",
            (Consumer<ClientOverrideConfiguration.Builder>)
                c -> c.retryStrategy(RetryMode.STANDARD)),
        Arguments.of(
            "retryStrategy(b -> maxAttempts(3))",
            (Consumer<ClientOverrideConfiguration.Builder>)
                c -> c.retryStrategy(b -> b.maxAttempts(3))),
        Arguments.of(
            "legacy retryPolicy(RetryMode.STANDARD)",
            (Consumer<ClientOverrideConfiguration.Builder>) c -> c.retryPolicy(RetryMode.STANDARD)),
        Arguments.of(
            "legacy retryPolicy(RetryPolicy numRetries 2)",
            (Consumer<ClientOverrideConfiguration.Builder>)
                c -> c.retryPolicy(RetryPolicy.builder().numRetries(2).build())));
  }

  private static ClaimRequest request(String tool) {
    return new ClaimRequest(
        new ClaimId("review", tool, UUID.randomUUID().toString()),
        "v1:a",
        LeaseToken.random(),
        LONG,
        LONG);
  }

  /** When the last try found no server, one read. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void theReadBackAfterRefusedConnectionsIsOneTry(
      String name, Consumer<ClientOverrideConfiguration.Builder> override) {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ScriptedHttp http =
        new ScriptedHttp()
            .script("PutItem", LAND_LOSE)
            .otherwise("PutItem", REFUSE)
            .otherwise("GetItem", REFUSE);
    try (DynamoDbClient client = client(http, override);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      assertThatThrownBy(() -> store.claim(request("one-try-" + name.length())))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(http.landed).as("the first PutItem landed").hasValue(1);
      assertThat(http.tries("PutItem")).as("PutItem tries").isGreaterThan(1);
      assertThat(http.tries("GetItem")).as(name + ": GetItem tries of the read-back").isEqualTo(1);
    }
  }

  /** Retries configured by system properties (aws.retryMode, aws.maxAttempts): still one read. */
  @Test
  void theReadBackIsOneTryWithRetriesFromSystemProperties() {
    System.setProperty("aws.retryMode", "standard");
    System.setProperty("aws.maxAttempts", "4");
    try {
      MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
      ScriptedHttp http =
          new ScriptedHttp()
              .script("PutItem", LAND_LOSE)
              .otherwise("PutItem", REFUSE)
              .otherwise("GetItem", REFUSE);
      try (DynamoDbClient client = client(http, c -> {});
          DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
        assertThatThrownBy(() -> store.claim(request("sysprops")))
            .isInstanceOf(StoreUnavailableException.class);
        assertThat(http.tries("PutItem")).as("PutItem tries").isGreaterThan(1);
        assertThat(http.tries("GetItem")).as("GetItem tries of the read-back").isEqualTo(1);
      }
    } finally {
      System.clearProperty("aws.retryMode");
      System.clearProperty("aws.maxAttempts");
    }
  }

  /** Whatever the client's retry configuration, the read-back finds the claim that landed. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void theReadBackFindsTheClaimThatLanded(
      String name, Consumer<ClientOverrideConfiguration.Builder> override) {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ScriptedHttp http =
        new ScriptedHttp().script("PutItem", LAND_LOSE).otherwise("PutItem", REFUSE);
    try (DynamoDbClient client = client(http, override);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimRequest r = request("finds-" + name.length());
      ClaimAttempt attempt = store.claim(r);
      assertThat(attempt).satisfies(acquiredBy(r));
    }
  }

  /** The plugin must keep the client's API call timeout: a hanging read ends within it. */
  @Test
  void theOneTryReadKeepsTheClientsApiCallTimeout() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ScriptedHttp http =
        new ScriptedHttp()
            .script("PutItem", LAND_LOSE)
            .otherwise("PutItem", REFUSE)
            .otherwise("GetItem", HANG);
    try (DynamoDbClient client =
            client(
                http,
                c -> c.retryStrategy(RetryMode.STANDARD).apiCallTimeout(Duration.ofSeconds(2)));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> store.claim(request("api-call-timeout")))
          .isInstanceOf(StoreUnavailableException.class);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(http.tries("GetItem")).isEqualTo(1);
      assertThat(took)
          .as("the claim, its read-back bounded by apiCallTimeout")
          .isLessThan(Duration.ofSeconds(8));
    }
  }

  /** The plugin must keep the client's interceptors and metric publishers. */
  @Test
  void theOneTryReadKeepsInterceptorsAndMetricPublishers() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    AtomicInteger intercepted = new AtomicInteger();
    ExecutionInterceptor interceptor =
        new ExecutionInterceptor() {
          @Override
          public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes a) {
            if ("GetItem".equals(a.getAttribute(SdkExecutionAttribute.OPERATION_NAME))) {
              intercepted.incrementAndGet();
            }
          }
        };
    List<String> published = new CopyOnWriteArrayList<>();
    MetricPublisher publisher =
        new MetricPublisher() {
          @Override
          public void publish(MetricCollection metrics) {
            metrics.metricValues(CoreMetric.OPERATION_NAME).forEach(published::add);
          }

          @Override
          public void close() {}
        };
    ScriptedHttp http =
        new ScriptedHttp().script("PutItem", LAND_LOSE).otherwise("PutItem", REFUSE);
    try (DynamoDbClient client =
            client(
                http,
                c ->
                    c.retryStrategy(RetryMode.STANDARD)
                        .addExecutionInterceptor(interceptor)
                        .addMetricPublisher(publisher));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      assertThat(store.claim(request("interceptors"))).isInstanceOf(ClaimAttempt.Acquired.class);
      assertThat(http.tries("GetItem")).isEqualTo(1);
      assertThat(intercepted).as("the client's interceptor saw the read-back").hasValue(1);
      assertThat(published)
          .as("the client's metric publisher got the read-back")
          .contains("GetItem");
    }
  }

  /**
   * An earlier try landed (answer lost), the later tries were throttled (400): the server was
   * reached, so the read-back has the SDK's retries, and a throttled first read is tried again and
   * finds the request's own claim.
   */
  @Test
  void aClaimThatLandedBeforeThrottlingIsReadBackWithTheSdksRetries() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ScriptedHttp http =
        new ScriptedHttp()
            .script("PutItem", LAND_LOSE)
            .otherwise("PutItem", THROTTLE)
            .script("GetItem", THROTTLE)
            .otherwise("GetItem", PASS);
    try (DynamoDbClient client = client(http, c -> c.retryStrategy(b -> b.maxAttempts(3)));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimRequest r = request("throttled");
      ClaimAttempt attempt;
      try {
        attempt = store.claim(r);
      } catch (StoreUnavailableException told) {
        attempt = null;
      }
      assertThat(http.landed).as("the first PutItem landed").hasValue(1);
      try (DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
          DynamoDbIdempotencyStore plain = ReviewDynamo.store(direct, clock)) {
        assertThat(plain.find(r.id()))
            .as("the key is held by the request's own in-progress item")
            .hasValueSatisfying(row -> assertThat(row.token()).isEqualTo(r.token()));
      }
      assertThat(attempt)
          .as("the request's own claim, read back (GetItem tries: %d)", http.tries("GetItem"))
          .satisfies(acquiredBy(r));
    }
  }

  /** The API call timeout ends the SDK's tries (no numAttempts): still read back. */
  @Test
  void aClaimEndedByTheApiCallTimeoutAfterALandedTryIsReadBack() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ScriptedHttp http =
        new ScriptedHttp().script("PutItem", LAND_LOSE, REFUSE).otherwise("PutItem", HANG);
    try (DynamoDbClient client =
            client(
                http,
                c -> c.retryStrategy(RetryMode.STANDARD).apiCallTimeout(Duration.ofSeconds(2)));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimRequest r = request("api-call-timeout-claim");
      assertThat(store.claim(r)).satisfies(acquiredBy(r));
    }
  }

  /** The request's own claim, read back: acquired, with its token. */
  private static java.util.function.Consumer<ClaimAttempt> acquiredBy(ClaimRequest r) {
    return attempt ->
        assertThat(attempt)
            .isInstanceOfSatisfying(
                ClaimAttempt.Acquired.class,
                a -> assertThat(a.record().token()).isEqualTo(r.token()));
  }
}
