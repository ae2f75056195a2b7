package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Review finding (9260b88): the FAILED event is emitted only at GateEngine.execute and
 * executeSingleCommit (GateEngine.told). The step-by-step API's {@code IdempotencyGate.claim}
 * (GateEngine.claim: {@code throw failure.toException()}) goes past it: a call the store could not
 * claim there is still told to the listeners by nothing (no WARN line, no
 * mcpgate.calls{outcome="failed.store_unavailable"}, no span decision), while every other outcome
 * of the same claim (ACQUIRED, REPLAYED, REFUSED) is told. Failure point: store.claim throws
 * StoreUnavailableException. Older than the change (82ef12e told nothing either), but the change
 * says such calls are now told.
 */
class FailedEventStepApiReviewTest {

  @Test
  void aStepByStepClaimTheStoreCouldNotWriteIsToldToListeners() {
    List<GateEvent> events = new CopyOnWriteArrayList<>();
    ForwardingIdempotencyStore down =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            throw new StoreUnavailableException("connection refused (test)", null);
          }
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(down).listener(events::add).build()) {
      assertThatThrownBy(
              () -> gate.claim(ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "o-1"))))
          .isInstanceOf(StoreUnavailableException.class);

      assertThat(events.stream().map(GateEvent::outcome).filter(Objects::nonNull).toList())
          .as("the call's one decision event")
          .hasSize(1);
    }
  }
}
