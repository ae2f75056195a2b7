package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A fence the store refused is kept and tried again while its lease is renewed; closing the gate
 * before the store takes it drops it, and that was only logged: the meters and the audit never
 * learnt that a key the caller was told is fenced is now left to a lease that runs out (found in
 * review). The listeners are told now.
 */
class ClosingDropsAPendingFenceAndSaysSoTest {
  @Test
  void aFenceDroppedByCloseIsToldToTheListeners() {
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public boolean complete(
              ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
            throw new StoreUnavailableException("complete refused (test)", null);
          }

          @Override
          public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
            throw new StoreUnavailableException("markUnknown refused (test)", null);
          }
        };
    List<GateEvent> events = new CopyOnWriteArrayList<>();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .lease(Duration.ofMillis(300))
                    .leaseRenewal(Duration.ofMillis(75))
                    .build())
            .listener(events::add)
            .build();
    gate.execute(
        ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "o-1")),
        ResultMapper.utf8(),
        ctx -> "refunded");
    int before = events.size();

    gate.close();

    assertThat(events.subList(before, events.size()))
        .anySatisfy(
            e -> {
              assertThat(e.type()).isEqualTo(GateEvent.Type.STORE_FAILED);
              assertThat(e.message()).contains("the gate closed before the store took the fence");
            });
  }
}
