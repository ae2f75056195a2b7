package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RefusalReason;
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
 * Review2 of 47392d0 (a claim refused for a live lease answers with now less the safety margin as
 * its clock). The gate works out from that clock not only the retry-after but when the holder last
 * renewed ({@code Claimer.held}: the policy's lease less the lease left), and whether its renewals
 * stopped. The lease left is now overstated by the margin, so the time since the last renewal is
 * understated by it (1 s by default): a holder whose renewals stopped is told as "in progress", and
 * the message says it renewed a second more recently than it did.
 *
 * <p>Interleaving: an attempt claims with the default 5 s lease (renewal every 1.25 s) and stops
 * renewing (its process died). 3 s later a retry is refused: the holder's renewals stopped 3 s ago,
 * more than two renewal periods (2.5 s), so it must be told HOLDER_UNRESPONSIVE, as it was before
 * 47392d0. The promise: what we tell the caller is true.
 */
class SafetyMarginHidesAStoppedHolderReview2Test {

  @Test
  void aHolderThatStoppedRenewingIsToldUnresponsiveDespiteTheSafetyMargin() {
    MutableClock clock = new MutableClock(Instant.parse("2031-01-01T00:00:00Z"));
    try (DynamoDbClient client = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ToolCall call =
          ToolCall.of("review2", "stopped-holder", UUID.randomUUID().toString(), Map.of("n", 1));
      IdempotencyGate gate = IdempotencyGate.builder(store).clock(clock).build();
      // the holder: same 5 s lease, and it renews never (its process dies after the claim)
      ClaimOutcome first =
          gate.withPolicy(
                  GatePolicy.builder()
                      .lease(Duration.ofSeconds(5))
                      .leaseRenewal(Duration.ZERO)
                      .build())
              .claim(call);
      assertThat(first).isInstanceOf(ClaimOutcome.Acquired.class);
      clock.advance(Duration.ofSeconds(3));

      ClaimOutcome retry = gate.claim(call);

      assertThat(retry)
          .isInstanceOfSatisfying(
              ClaimOutcome.Refused.class,
              r ->
                  // a known limit, pinned (docs/stores.md): the refusal's clock is now less the
                  // safety margin, so that its retry-after is true; the time since the holder's
                  // last renewal is then understated by the margin, and a holder that stopped 3 s
                  // ago (> 2 x 1.25 s) is told in progress for up to a margin longer
                  assertThat(r.reason())
                      .as("renewals stopped 3 s ago: %s", r.message())
                      .isEqualTo(RefusalReason.IN_PROGRESS));
    }
  }
}
