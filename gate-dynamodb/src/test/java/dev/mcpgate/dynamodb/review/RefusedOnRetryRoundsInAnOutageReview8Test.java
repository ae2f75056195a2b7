package dev.mcpgate.dynamodb.review;

import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.LAND_LOSE;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.PASS;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.THROTTLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Review8 of 5c8a026 (liveness). Reads are throttled throughout; each PutItem's first try is
 * throttled and its retry refused (by this request's own item, which the first round's lost try
 * wrote). On a server that does not return the old item, every round now ends in a failed GetItem
 * (all its SDK tries) and goes on: five rounds of a put (2 tries) and a read (3 tries), 25 requests
 * and their backoffs, where 4a050cc spent 2 puts and 2 reads (8 requests) before failing. Now a put
 * refused on the SDK's retry whose read fails claims again once: one round more, two puts more, and
 * no more reads than before.
 */
class RefusedOnRetryRoundsInAnOutageReview8Test {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aClaimInAReadOutageClaimsAgainOnceAndReadsNoMoreThanBefore() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    ClaimId id = new ClaimId("review8", "rounds-in-outage", UUID.randomUUID().toString());
    ScriptedHttp http =
        new ScriptedHttp()
            .script("PutItem", LAND_LOSE, PASS)
            .script("PutItem", THROTTLE, PASS, THROTTLE, PASS, THROTTLE, PASS, THROTTLE, PASS)
            .otherwise("GetItem", THROTTLE);
    long started;
    long took;
    Throwable thrown;
    try (DynamoDbClient client =
            ReviewDynamo.client(
                ReviewDynamo.endpoint(),
                b ->
                    b.httpClient(http)
                        .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(3))));
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      started = System.nanoTime();
      thrown =
          catchThrowable(
              () -> store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG)));
      took = (System.nanoTime() - started) / 1_000_000;
    }
    assertThat(thrown)
        .as("the put of round 1 may hold the key, and the failure says so")
        .hasMessageContaining("may have landed")
        .hasMessageContaining("may stay held by this claim");
    assertThat(http.tries("GetItem"))
        .as("reads of one claim in a read outage (took %d ms; 4a050cc: 6)", took)
        .isLessThanOrEqualTo(6);
    assertThat(http.tries("PutItem"))
        .as("puts of one claim in a read outage: two rounds, a try and a retry each (4a050cc: one)")
        .isEqualTo(4);
  }
}
