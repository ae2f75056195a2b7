package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * A claim tries a takeover in up to five rounds, each after another attempt changed the item since
 * it was read. When the last round's takeover lands and its answer is lost, the SDK's retry is
 * refused by the item that very takeover wrote: the claim is the request's own, not "neither a free
 * key nor an item in 5 rounds" (a store failure told while the request's own claim holds the key
 * for a lease, so that the caller's retry is told "in progress").
 */
class TakeoverAnswerLostInTheLastRoundTest {
  private static final Duration SHORT = Duration.ofSeconds(1);
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aTakeoverLandedInTheLastRoundWithItsAnswerLostIsAcquired() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review", "last-round", UUID.randomUUID().toString());
    AtomicInteger takeovers = new AtomicInteger();
    try (LostAnswerProxy proxy = new LostAnswerProxy(ReviewDynamo.endpoint());
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore other = ReviewDynamo.store(direct, clock)) {
      ExecutionInterceptor racing =
          new ExecutionInterceptor() {
            @Override
            public void beforeExecution(
                Context.BeforeExecution context, ExecutionAttributes attributes) {
              if (!(context.request() instanceof UpdateItemRequest)) {
                return;
              }
              if (takeovers.incrementAndGet() < 5) {
                // another attempt takes the key over between the read and this takeover, then
                // stops: its lease is over by the next round
                other.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), SHORT, LONG));
                clock.advance(Duration.ofSeconds(5));
              } else {
                proxy.loseNextAnswers("UpdateItem", 1);
              }
            }
          };
      try (DynamoDbClient client =
              ReviewDynamo.client(
                  proxy.endpoint(),
                  b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(racing)));
          DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
        other.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), SHORT, LONG));
        clock.advance(Duration.ofSeconds(5)); // the first holder stopped

        LeaseToken token = LeaseToken.random();
        ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));

        assertThat(takeovers.get()).as("takeovers tried, one per round").isEqualTo(5);
        assertThat(proxy.lost()).as("the last takeover's answer was lost").isEqualTo(1);
        assertThat(store.find(id).orElseThrow().token())
            .as("the key is held by this very request's token")
            .isEqualTo(token);
        assertThat(attempt)
            .as("the request's own takeover, told as acquired")
            .isInstanceOfSatisfying(
                ClaimAttempt.Acquired.class,
                a -> {
                  assertThat(a.record().token()).isEqualTo(token);
                  assertThat(a.record().attempt()).isEqualTo(6);
                });
      }
    }
  }
}
