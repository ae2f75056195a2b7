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
 * Review5 of e372dbd ({@code ClaimWrites.claim}, a takeover refused on the SDK's retry whose
 * read-back fails).
 *
 * <p>1. Rounds 1-4 {@code continue}: when the throttling (or outage) that failed the read-back
 * lasts into the next round, that round's PutItem fails, {@code readBack}'s read fails too, and the
 * PutItem's failure is thrown ("could not claim ..."): nothing says the takeover may have landed,
 * while the request's own takeover holds the key for its lease, exactly the round-1 (Review4)
 * complaint, now in rounds 1-4 instead of round 1. Only round 5 says it.
 *
 * <p>2. Round 5's message said the key "may stay held by this claim until its lease ends"; it is
 * held until the lease end plus the safety margin (a takeover's condition waits out the margin), so
 * a claim just after the lease end is still told Existing. The message now says so.
 */
class TakeoverUnreadReview5Test {
  private static final Duration SHORT = Duration.ofSeconds(1);
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aTakeoverUnreadInAnEarlierRoundIsNamedWhenTheOutageLasts() {
    Claimed c = claim(0, true);
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
