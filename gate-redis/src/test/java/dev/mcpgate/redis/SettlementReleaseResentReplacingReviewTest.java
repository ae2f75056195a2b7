package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Review of 99f23e8..b378774 on Redis: the operator's settlement takes attempt 1 over (a claim
 * replacing its token), fences it, and writes its verdict; "not happened" is the RELEASE script by
 * the takeover's token. Lettuce, with its default at-least-once options, re-sends a command whose
 * reply was lost when the connection closed (as ResentReplacingClaimTest models for the claim: the
 * script run twice). The re-sent RELEASE finds no row and answers 0, so the settlement answers
 * false, which resolveUnknown documents as "the row changed since it was read (nothing is then
 * written)". The release was written: the key is free. Severity: untrue answer. (The gate-core
 * version, OperatorSettlementReplacingReviewTest, shows the same with the reply lost outright.)
 */
class SettlementReleaseResentReplacingReviewTest {

  @Test
  void aVerdictReleaseRunTwiceIsNotToldAsNothingWritten() throws Exception {
    try (RedisIdempotencyStore redis =
        RedisIdempotencyStore.builder(TestRedis.client()).keyPrefix("mcpgate-test:").build()) {
      AtomicBoolean resendNextRelease = new AtomicBoolean();
      ForwardingIdempotencyStore store =
          new ForwardingIdempotencyStore(redis) {
            @Override
            public boolean release(ClaimId id, LeaseToken token) {
              boolean first = super.release(id, token);
              if (resendNextRelease.getAndSet(false)) {
                return super.release(id, token); // what the re-sent script answers
              }
              return first;
            }
          };
      ToolCall call =
          ToolCall.of("t-" + UUID.randomUUID(), "refund_order", "k", Map.of("order_id", "ord_9f2"));
      GatePolicy policy =
          GatePolicy.builder().lease(Duration.ofMillis(500)).leaseRenewal(Duration.ZERO).build();
      try (IdempotencyGate gate = IdempotencyGate.builder(store).policy(policy).build()) {
        gate.claim(call); // attempt 1: its process died
        Thread.sleep(800);
        resendNextRelease.set(true);

        boolean settled = gate.resolveUnknown(call.id(), Reconciler.Verdict.notHappened());

        assertThat(gate.find(call.id())).as("the verdict was applied: the key is free").isEmpty();
        assertThat(settled).as("false says nothing was written").isTrue();
      }
    }
  }
}
