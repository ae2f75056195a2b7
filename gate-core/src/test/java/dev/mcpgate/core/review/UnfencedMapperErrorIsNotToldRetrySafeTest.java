package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/**
 * The mapper throws an {@link Error} after the action ran, and the key cannot be fenced: the store
 * refuses the fence and the late fence cannot be kept (the gate's scheduler is shut down). The
 * answer said "the key is fenced as unknown" and, with a reconciler, that a retry is safe; the row
 * was only in progress under a lease that runs out, and such a retry ran the action again, the
 * reconciler never asked (found in review). It now says the key could not be fenced, and that a
 * retry is not safe.
 */
class UnfencedMapperErrorIsNotToldRetrySafeTest {
  @Test
  void anUnfencedKeyIsToldAsSuchAndNotRetrySafe() {
    InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
            throw new StoreUnavailableException("markUnknown refused (test)", null);
          }
        };
    ResultMapper<String> broken =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(String value) {
            throw new AssertionError("the mapper broke (test)");
          }

          @Override
          public String fromBytes(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
          }
        };
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    scheduler.shutdown(); // the late fence cannot be kept
    GatePolicy policy =
        GatePolicy.builder()
            .lease(Duration.ofMillis(300))
            .leaseRenewal(Duration.ZERO)
            .reconciler((id, downstreamKey) -> Reconciler.Verdict.notHappened())
            .build();
    ToolCall call = ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store).policy(policy).scheduler(scheduler).build()) {
      GateResult<String> first = gate.execute(call, broken, ctx -> "refunded");

      assertThat(memory.find(call.id()).orElseThrow().state())
          .as("not fenced")
          .isEqualTo(ClaimState.IN_PROGRESS);
      assertThat(first)
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> {
                assertThat(f.reason()).isEqualTo(FailureReason.OUTCOME_UNKNOWN);
                assertThat(f.effect()).isEqualTo(GateResult.Effect.YES);
                assertThat(f.retrySafe()).as("a retry may run it again").isFalse();
                assertThat(f.message())
                    .contains("could not be fenced")
                    .doesNotContain("is fenced as unknown");
              });
    }
  }
}
