package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Review6 of 132513f ({@code ClaimWrites.claim} wraps any later failure once a takeover's read-back
 * failed).
 *
 * <p>Round 1: the request's takeover of A's expired claim is throttled on its first try (it never
 * lands), another attempt B takes the key over, the SDK's retry is refused (REFUSED_ON_RETRY), and
 * the read-back is throttled: {@code unread[0]} is set. Round 2: the PutItem is throttled on every
 * try, {@code readBack} reads the item (the read succeeds) and finds B's claim, so it throws the
 * PutItem's failure. The wrapper then tells the caller that "the item could not be read back since"
 * and that "the key may stay held by this claim until its lease and the lease safety margin after
 * it end" - both untrue: the item was read back after the failed read, and it is B's. A token never
 * comes back once replaced, so nothing of this request's holds the key.
 */
class TakeoverUnreadThenReadReview6Test {
  private static final Duration SHORT = Duration.ofSeconds(1);
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aLaterReadThatFindsAnotherHolderIsNotToldAsUnread() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review6", "unread-then-read", UUID.randomUUID().toString());
    ScriptedHttp http = new ScriptedHttp();
    DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
    DynamoDbIdempotencyStore others = ReviewDynamo.store(direct, clock);
    LeaseToken b = LeaseToken.random();
    ExecutionInterceptor bTakesOver =
        new ExecutionInterceptor() {
          @Override
          public void beforeExecution(
              Context.BeforeExecution context, ExecutionAttributes attributes) {
            if (context.request() instanceof UpdateItemRequest) {
              // B takes A's expired claim over before the request's takeover is sent
              others.claim(new ClaimRequest(id, "v1:a", b, LONG, LONG));
            }
          }
        };
    DynamoDbClient client =
        ReviewDynamo.client(
            ReviewDynamo.endpoint(),
            bld ->
                bld.httpClient(http)
                    .overrideConfiguration(
                        c ->
                            c.addExecutionInterceptor(bTakesOver)
                                .retryStrategy(
                                    AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                        .maxAttempts(3)
                                        .build())));
    DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
    others.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), SHORT, LONG)); // A
    clock.advance(Duration.ofSeconds(5)); // A's lease and the margin after it are over

    // round 1: PutItem refused (A's item, read by a GetItem on dynalite); UpdateItem throttled,
    // then refused (B's token);
    // GetItem throttled on all 3 tries. Round 2: PutItem throttled on all 3 tries; the
    // read-back GetItem passes and finds B's claim
    http.script("PutItem", ScriptedHttp.Fault.PASS);
    http.script("PutItem", ScriptedHttp.Fault.THROTTLE, ScriptedHttp.Fault.THROTTLE);
    http.script("PutItem", ScriptedHttp.Fault.THROTTLE);
    http.script("UpdateItem", ScriptedHttp.Fault.THROTTLE, ScriptedHttp.Fault.PASS);
    http.script("GetItem", ScriptedHttp.Fault.PASS); // the PutItem's refusal read (dynalite)
    http.script("GetItem", ScriptedHttp.Fault.THROTTLE, ScriptedHttp.Fault.THROTTLE);
    http.script("GetItem", ScriptedHttp.Fault.THROTTLE);

    LeaseToken token = LeaseToken.random();
    RuntimeException thrown = null;
    try {
      store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
    } catch (RuntimeException e) {
      thrown = e;
    }
    LeaseToken holder = others.find(id).orElseThrow().token();
    int gets = http.tries("GetItem");
    int updates = http.tries("UpdateItem");
    store.close();
    client.close();
    others.close();
    direct.close();

    assertThat(thrown).as("thrown").isNotNull();
    System.out.println("REVIEW6 thrown: " + thrown);
    assertThat(updates).as("the takeover: throttled, then refused on the retry").isEqualTo(2);
    assertThat(gets)
        .as("the refusal's read, 3 throttled read-back tries, then readBack's read")
        .isEqualTo(5);
    assertThat(holder).as("B holds the key, not this request").isEqualTo(b);
    assertThat(thrown).isInstanceOf(StoreUnavailableException.class);
    assertThat(thrown.getMessage())
        .as("the item was read back after the failed read and is B's")
        .doesNotContain("could not be read back since")
        .doesNotContain("may stay held by this claim");
  }
}
