package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A gate closed while the store still refuses a fence logs at ERROR "Settle it by hand
 * (gate.resolveUnknown)". The key's row is then still IN_PROGRESS, not UNKNOWN: once its lease has
 * run out, resolveUnknown settles it as it settles an unknown one, so the retry is answered from
 * the operator's verdict instead of running the refund again (found in the operations newcomer
 * trial on MariaDB, where the retry ran the refund a second time). While the lease still runs, the
 * attempt may be alive: the row is not settled.
 */
class ClosedPendingFenceSettleTest {
  private static final ResultMapper<String> MAPPER = ResultMapper.utf8();
  private static final Duration LEASE = Duration.ofMillis(400);

  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
  private final FaultyFenceStore store = new FaultyFenceStore(memory);
  private final GatePolicy policy =
      GatePolicy.builder()
          .lease(LEASE)
          .leaseRenewal(Duration.ofMillis(100))
          .inFlightWait(Duration.ZERO)
          .build();
  private final ToolCall call =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
  private final AtomicInteger refunds = new AtomicInteger();

  /** Runs the refund on a gate that is closed while the store refuses its result and fence. */
  private void refundThenCloseWhileTheStoreRefuses() {
    try (IdempotencyGate first = IdempotencyGate.builder(store).policy(policy).build()) {
      store.refusing.set(true);
      first.execute(call, MAPPER, ctx -> "refunded " + refunds.incrementAndGet());
    } // closed with the fence still refused: ERROR "Settle it by hand (gate.resolveUnknown)"
    store.refusing.set(false);
    assertThat(memory.find(call.id()).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
  }

  @Test
  void theKeyLeftByAGateClosedBeforeItsFenceIsSettledByHandOnceItsLeaseRanOut() throws Exception {
    refundThenCloseWhileTheStoreRefuses();
    Thread.sleep(LEASE.toMillis() + 100);

    try (IdempotencyGate operator = IdempotencyGate.builder(store).policy(policy).build()) {
      boolean settled =
          operator.resolveUnknown(
              call.id(),
              Reconciler.Verdict.happened("refunded 1".getBytes(StandardCharsets.UTF_8)));
      assertThat(settled).as("settled by hand, as the ERROR line advises").isTrue();

      GateResult<String> retry =
          operator.execute(call, MAPPER, ctx -> "refunded " + refunds.incrementAndGet());
      assertThat(retry).isInstanceOf(GateResult.Replayed.class);
      assertThat(retry.orThrow()).isEqualTo("refunded 1");
      assertThat(refunds.get()).as("refunds").isEqualTo(1);
    }
  }

  @Test
  void aKeyInProgressUnderALiveLeaseIsNotSettled() {
    refundThenCloseWhileTheStoreRefuses();
    try (IdempotencyGate operator = IdempotencyGate.builder(store).policy(policy).build()) {
      assertThat(operator.resolveUnknown(call.id(), Reconciler.Verdict.notHappened()))
          .as("the attempt may still be running")
          .isFalse();
      assertThat(memory.find(call.id()).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    }
  }
}
