package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Finding (tells the caller something untrue, low; liveness): a holder stopped renewing and its
 * lease ended less than {@code leaseSafetyMargin} ago. The store refuses the takeover (the lease
 * still counts as alive for the margin) but answers {@code Existing} with its plain clock as {@code
 * storeNow}, so the gate sees a lease already over: it tells the caller "expires in 0 ms; a retry
 * after that takes the key over" with {@code retry_after_ms = 0}. The retry after that wait is
 * refused again, and again, until the margin (1 s by default, often set to several) has passed: the
 * caller is told a wait that is not true and retries in a tight loop.
 *
 * <p>Expected: a retry after the told {@code retryAfter} takes the key over (the store's answer
 * reflects the clock its takeover rule uses: now less the margin).
 */
class SafetyMarginRetryAfterReviewTest {

  @Test
  void aRetryAfterTheToldWaitTakesOverALeaseEndedWithinTheSafetyMargin() {
    MutableClock clock = new MutableClock(Instant.parse("2031-06-01T00:00:00Z"));
    try (DynamoDbClient client = ReviewDynamo.client(ReviewDynamo.endpoint())) {
      ReviewDynamo.store(client, clock).close(); // the review table exists
      try (DynamoDbIdempotencyStore store =
          DynamoDbIdempotencyStore.builder(client)
              .tableName(ReviewDynamo.TABLE)
              .clock(clock)
              .leaseSafetyMargin(Duration.ofSeconds(5))
              .build()) {
        GatePolicy policy =
            GatePolicy.builder().lease(Duration.ofSeconds(2)).inFlightWait(Duration.ZERO).build();
        IdempotencyGate gate = IdempotencyGate.builder(store).policy(policy).build();
        ToolCall call =
            ToolCall.of("review", "margin", UUID.randomUUID().toString(), Map.of("n", 1));
        assertThat(gate.claim(call)).isInstanceOf(ClaimOutcome.Acquired.class);

        clock.advance(Duration.ofSeconds(3)); // the lease ended 1 s ago; the margin is 5 s
        ClaimOutcome refused = gate.claim(call);
        assertThat(refused).isInstanceOf(ClaimOutcome.Refused.class);
        Duration retryAfter = ((ClaimOutcome.Refused) refused).retryAfter();

        clock.advance(retryAfter.plusMillis(1)); // the caller waits as told
        ClaimOutcome retry = gate.claim(call);

        assertThat(retry)
            .as("told to retry after %s ms (%s)", retryAfter.toMillis(), refused)
            .isInstanceOf(ClaimOutcome.Acquired.class);
      }
    }
  }
}
