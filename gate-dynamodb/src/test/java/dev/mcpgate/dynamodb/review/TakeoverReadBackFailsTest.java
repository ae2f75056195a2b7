package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * A claim's takeover refused on the SDK's retry (an earlier try may have landed, its answer lost)
 * whose read-back fails: the interleaving of reviews 4 and 5. Attempt 1 (another process) claimed
 * and stopped; its lease is over. This request puts, is refused, reads the item, and sends the
 * takeover UpdateItem: the server applies it and the answer is lost; the SDK's retry is refused
 * (REFUSED_ON_RETRY). The read-back GetItem is throttled on every one of the SDK's tries (a hot
 * partition, a read-capacity limit: reads and writes have separate capacity).
 *
 * <ul>
 *   <li>Review 4: in round 1 of 5 the read's failure alone was thrown, and the request's own landed
 *       takeover was told as a store failure while it held the key; the next round's write finds
 *       the request's own item instead.
 *   <li>Review 5: when the outage lasts into the next rounds, the failure then thrown says nothing
 *       of the takeover; and in the last round the key stays held until the lease and the safety
 *       margin after it end, not the lease alone. The failure now says both.
 * </ul>
 */
class TakeoverReadBackFailsTest {
  private static final Duration SHORT = Duration.ofSeconds(1);
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aLandedTakeoverWhoseReadBackFailsInTheFirstRoundIsAcquiredInTheNext() {
    Claimed c = claim(0, false);
    c.close.run();
    assertThat(c.thrown)
        .as("in round 1 of 5 the request's own landed takeover is not told as a store failure")
        .isNull();
    assertThat(c.attempt)
        .isInstanceOfSatisfying(
            ClaimAttempt.Acquired.class, a -> assertThat(a.record().token()).isEqualTo(c.token));
  }

  @Test
  void inTheLastRoundTheFailureSaysTheTakeoverMayHaveLandedAndHoldTheKey() {
    Claimed c = claim(4, false);
    c.close.run();
    assertThat(c.thrown)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("a takeover of it may have landed")
        .hasMessageContaining("the action did not run")
        .hasMessageContaining("the key may stay held by this claim until its lease")
        .cause()
        .hasMessageContaining("read");
  }

  @Test
  void aTakeoverUnreadInAnEarlierRoundIsNamedWhenTheOutageLasts() {
    Claimed c = claim(0, true);
    c.close.run();
    assertThat(c.thrown)
        .as("round 1's takeover landed (the key is the request's), the outage lasts")
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("may have landed");
  }

  @Test
  void theLastRoundsMessageSaysHowLongTheKeyMayStayHeld() {
    Claimed c = claim(4, false);
    assertThat(c.thrown)
        .hasMessageContaining("until its lease and the lease safety margin after it end");
    c.clock.advance(LONG.plusMillis(1)); // its lease has ended, not the margin after it
    ClaimAttempt held =
        c.others.claim(new ClaimRequest(c.id, "v1:a", LeaseToken.random(), SHORT, LONG));
    c.clock.advance(Duration.ofSeconds(1)); // the margin (ReviewDynamo's store: 1 s) is over
    ClaimAttempt free =
        c.others.claim(new ClaimRequest(c.id, "v1:a", LeaseToken.random(), SHORT, LONG));
    c.close.run();
    assertThat(held)
        .as("within the margin after the lease")
        .isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(free).as("after the margin").isInstanceOf(ClaimAttempt.Acquired.class);
  }

  private record Claimed(
      ClaimId id,
      MutableClock clock,
      DynamoDbIdempotencyStore others,
      LeaseToken token,
      ClaimAttempt attempt,
      RuntimeException thrown,
      Runnable close) {}

  private static Claimed claim(int racing, boolean outageLasts) {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review5", "readback-fails", UUID.randomUUID().toString());
    ScriptedHttp http = new ScriptedHttp();
    for (int i = 0; i < racing; i++) {
      http.script("UpdateItem", ScriptedHttp.Fault.PASS);
    }
    http.script("UpdateItem", ScriptedHttp.Fault.LAND_LOSE);
    AtomicInteger takeovers = new AtomicInteger();
    AtomicBoolean takeoverSent = new AtomicBoolean();
    AtomicBoolean failingRead = new AtomicBoolean();
    DynamoDbIdempotencyStore[] other = new DynamoDbIdempotencyStore[1];
    ExecutionInterceptor readBackFails =
        new ExecutionInterceptor() {
          @Override
          public void beforeExecution(
              Context.BeforeExecution context, ExecutionAttributes attributes) {
            if (context.request() instanceof UpdateItemRequest) {
              if (takeovers.incrementAndGet() <= racing) {
                other[0].claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), SHORT, LONG));
                clock.advance(Duration.ofSeconds(5));
              } else {
                takeoverSent.set(true);
              }
            } else if (context.request() instanceof GetItemRequest
                && takeoverSent.compareAndSet(true, false)) {
              failingRead.set(true);
              http.otherwise("GetItem", ScriptedHttp.Fault.THROTTLE);
              if (outageLasts) {
                http.otherwise("PutItem", ScriptedHttp.Fault.THROTTLE);
              }
            }
          }

          @Override
          public void onExecutionFailure(
              Context.FailedExecution context, ExecutionAttributes attributes) {
            if (!outageLasts
                && context.request() instanceof GetItemRequest
                && failingRead.compareAndSet(true, false)) {
              http.otherwise("GetItem", ScriptedHttp.Fault.PASS);
            }
          }
        };
    DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
    DynamoDbIdempotencyStore others = ReviewDynamo.store(direct, clock);
    DynamoDbClient client =
        ReviewDynamo.client(
            ReviewDynamo.endpoint(),
            b ->
                b.httpClient(http)
                    .overrideConfiguration(
                        c ->
                            c.addExecutionInterceptor(readBackFails)
                                .retryStrategy(
                                    AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                        .maxAttempts(3)
                                        .build())));
    DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
    other[0] = others;
    others.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), SHORT, LONG));
    clock.advance(Duration.ofSeconds(5));

    LeaseToken token = LeaseToken.random();
    ClaimAttempt attempt = null;
    RuntimeException thrown = null;
    try {
      attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
    } catch (RuntimeException e) {
      thrown = e;
    }
    assertThat(takeovers).as("takeovers tried, one per round").hasValue(racing + 1);
    assertThat(http.landed).as("the takeover reached the server, its answer lost").hasValue(1);
    assertThat(others.find(id).orElseThrow().token())
        .as("the key is held by this very request's token")
        .isEqualTo(token);
    return new Claimed(
        id,
        clock,
        others,
        token,
        attempt,
        thrown,
        () -> {
          store.close();
          client.close();
          others.close();
          direct.close();
        });
  }
}
