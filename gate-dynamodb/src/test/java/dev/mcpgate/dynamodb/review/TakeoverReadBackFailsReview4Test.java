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
 * Review4 of f24190a (b): a takeover refused on the SDK's retry now reads the item back at once
 * with {@code requests.get}, and a failure of that read propagates out of {@code claim}. In round 1
 * of 5 (before f24190a: "claim again", whose PutItem finds the request's own item and answers
 * Acquired) the request's own landed takeover is now told as a store failure ("could not read ...")
 * when the one read-back GetItem fails, while the request's own claim holds the key for its lease:
 * the caller's retry is told "in progress" until the lease runs out, for a claim nobody runs. The
 * existing {@code readBack} at least throws the write's failure with the read's as suppressed; here
 * the read's failure alone is thrown, and nothing says the takeover may have landed.
 *
 * <p>Interleaving: attempt 1 (another process) claimed and stopped; its lease is over. This request
 * (round 1) puts, is refused, reads the item, and sends the takeover UpdateItem: the server applies
 * it and the answer is lost; the SDK's retry is refused (REFUSED_ON_RETRY). The read-back GetItem
 * is throttled on every one of the SDK's tries (a hot partition, a read-capacity limit: reads and
 * writes have separate capacity). Later requests pass.
 *
 * <p>In the last round no round is left to find the item: the claim fails, saying that its takeover
 * may have landed and that the key may stay held by it until its lease ends.
 */
class TakeoverReadBackFailsReview4Test {
  private static final Duration SHORT = Duration.ofSeconds(1);
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aLandedTakeoverWhoseReadBackFailsInTheFirstRoundIsNotToldAsAStoreFailure() {
    Claimed c = claimWithTheReadBackThrottled(0);

    assertThat(c.thrown)
        .as(
            "in round 1 of 5, the request's own landed takeover is not told as a store failure"
                + " (before f24190a the next round found it and answered Acquired)")
        .isNull();
    assertThat(c.attempt)
        .isInstanceOfSatisfying(
            ClaimAttempt.Acquired.class, a -> assertThat(a.record().token()).isEqualTo(c.token));
  }

  @Test
  void inTheLastRoundTheFailureSaysTheTakeoverMayHaveLandedAndHoldTheKey() {
    Claimed c = claimWithTheReadBackThrottled(4);

    assertThat(c.thrown)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("a takeover of it may have landed")
        .hasMessageContaining("the action did not run")
        .hasMessageContaining("the key may stay held by this claim until its lease")
        .cause()
        .hasMessageContaining("read");
  }

  private record Claimed(LeaseToken token, ClaimAttempt attempt, RuntimeException thrown) {}

  /**
   * Claims a key whose holder stopped, after {@code racing} rounds whose takeovers another attempt
   * beat; the next takeover lands with its answer lost, and its read-back is throttled on every
   * try.
   */
  private static Claimed claimWithTheReadBackThrottled(int racing) {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review4", "readback-fails", UUID.randomUUID().toString());
    ScriptedHttp http = new ScriptedHttp();
    for (int i = 0; i < racing; i++) {
      http.script("UpdateItem", ScriptedHttp.Fault.PASS);
    }
    http.script("UpdateItem", ScriptedHttp.Fault.LAND_LOSE);
    AtomicInteger takeovers = new AtomicInteger();
    AtomicBoolean takeoverSent = new AtomicBoolean();
    AtomicBoolean failingRead = new AtomicBoolean();
    AtomicInteger failedReads = new AtomicInteger();
    DynamoDbIdempotencyStore[] other = new DynamoDbIdempotencyStore[1];
    ExecutionInterceptor readBackFails =
        new ExecutionInterceptor() {
          @Override
          public void beforeExecution(
              Context.BeforeExecution context, ExecutionAttributes attributes) {
            if (context.request() instanceof UpdateItemRequest) {
              if (takeovers.incrementAndGet() <= racing) {
                // another attempt takes the key over first, then stops
                other[0].claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), SHORT, LONG));
                clock.advance(Duration.ofSeconds(5));
              } else {
                takeoverSent.set(true);
              }
            } else if (context.request() instanceof GetItemRequest
                && takeoverSent.compareAndSet(true, false)) {
              // the first GetItem after the takeover: the read-back; every try of it throttled
              failingRead.set(true);
              http.otherwise("GetItem", ScriptedHttp.Fault.THROTTLE);
            }
          }

          @Override
          public void onExecutionFailure(
              Context.FailedExecution context, ExecutionAttributes attributes) {
            if (context.request() instanceof GetItemRequest
                && failingRead.compareAndSet(true, false)) {
              failedReads.incrementAndGet();
              http.otherwise("GetItem", ScriptedHttp.Fault.PASS);
            }
          }
        };
    try (DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
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
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      other[0] = others;
      others.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), SHORT, LONG));
      clock.advance(Duration.ofSeconds(5)); // attempt 1 stopped: its lease is over

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
      assertThat(failedReads).as("the read-back failed on every try").hasValue(1);
      assertThat(store.find(id).orElseThrow().token())
          .as("the key is held by this very request's token, for its lease")
          .isEqualTo(token);
      return new Claimed(token, attempt, thrown);
    }
  }
}
