package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A gate closed while the store still refuses a fence logs at ERROR "Settle it by hand
 * (gate.resolveUnknown)", as docs/operations.md ("Liveness") said until this trial ("settle such a
 * key by hand"). But the key's row is IN_PROGRESS, not UNKNOWN, and resolveUnknown settles only
 * UNKNOWN rows: it returns false and changes nothing, and the first retry after the lease takes the
 * key over and runs the action again. Found in the operations newcomer trial (the claims table
 * renamed away during an action on MariaDB, then the gate closed; the retry ran the refund a second
 * time); fails today.
 */
class ClosedPendingFenceSettleTest {
  private static final ResultMapper<String> MAPPER = ResultMapper.utf8();

  @Test
  void theKeyLeftByAGateClosedBeforeItsFenceCanBeSettledByHandAsTheLogSays() throws Exception {
    InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
    FaultyFenceStore store = new FaultyFenceStore(memory);
    GatePolicy policy =
        GatePolicy.builder()
            .lease(Duration.ofMillis(400))
            .leaseRenewal(Duration.ofMillis(100))
            .inFlightWait(Duration.ZERO)
            .build();
    ToolCall call = ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
    try (IdempotencyGate first = IdempotencyGate.builder(store).policy(policy).build()) {
      store.refusing.set(true);
      first.execute(call, MAPPER, ctx -> "refunded");
    } // closed with the fence still refused: ERROR "Settle it by hand (gate.resolveUnknown)"
    store.refusing.set(false);
    assertThat(memory.find(call.id()).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);

    try (IdempotencyGate operator = IdempotencyGate.builder(store).policy(policy).build()) {
      boolean settled =
          operator.resolveUnknown(
              call.id(), Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8)));

      // today: false, nothing changed; a retry after the lease runs the refund again
      assertThat(settled).as("settled by hand, as the ERROR line advises").isTrue();
    }
  }
}
