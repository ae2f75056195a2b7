package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Every call is told to the listeners (logs, meters, spans) by one decision event: a call the store
 * could not claim is a {@code FAILED} event, where it was told nothing before; a failure after a
 * claim is told by the events of its attempt, never by a second decision.
 */
class FailedEventTest {
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicBoolean down = new AtomicBoolean(true);
  private final ForwardingIdempotencyStore store =
      new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
        @Override
        public ClaimAttempt claim(ClaimRequest request) {
          if (down.get()) {
            throw new StoreUnavailableException("connection refused (test)", null);
          }
          return super.claim(request);
        }
      };

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order", "o-1"));
  }

  @Test
  void aCallTheStoreCouldNotClaimIsToldAsFailed() {
    try (IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build()) {
      GateResult<String> result = gate.execute(call("k-1"), ResultMapper.utf8(), ctx -> "ran");

      assertThat(result).isInstanceOf(GateResult.Failed.class);
      assertThat(events).hasSize(1);
      GateEvent e = events.get(0);
      assertThat(e.type()).isEqualTo(GateEvent.Type.FAILED);
      assertThat(e.failure()).isEqualTo(FailureReason.STORE_UNAVAILABLE);
      assertThat(e.outcome()).isEqualTo("failed.store_unavailable");
      assertThat(e.attemptResult()).isNull();
      assertThat(e.id()).isEqualTo(new ClaimId("acme", "refund_order", "k-1"));
      assertThat(e.error()).isInstanceOf(StoreUnavailableException.class);
      assertThat(e.attempt()).isZero();
    }
  }

  @Test
  void aSingleCommitClaimTheStoreCouldNotWriteIsToldAsFailed() {
    FailedResultReviewTest.Unit unit =
        new FailedResultReviewTest.Unit(InMemoryIdempotencyStore.create());
    unit.claimFails.set(true);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build()) {
      gate.executeSingleCommit(call("k-2"), ResultMapper.utf8(), unit, (undo, ctx) -> "ran");

      assertThat(events).extracting(GateEvent::outcome).containsExactly("failed.store_unavailable");
    }
  }

  @Test
  void aFailureAfterTheClaimIsToldByItsAttemptNotAsASecondDecision() {
    down.set(false);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build()) {
      GateResult<String> result =
          gate.execute(
              call("k-3"),
              ResultMapper.utf8(),
              ctx -> {
                throw new IllegalStateException("the refund failed (test)");
              });

      assertThat(result).isInstanceOf(GateResult.Failed.class);
      assertThat(events)
          .extracting(GateEvent::type)
          .containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.RELEASED);
    }
  }

  @Test
  void aFailureGoesWithFailedEventsOnly() {
    ClaimId id = new ClaimId("acme", "refund_order", "k");
    assertThatThrownBy(() -> event(GateEvent.Type.FAILED, id, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a failure goes with FAILED events");
    assertThatThrownBy(() -> event(GateEvent.Type.RELEASED, id, FailureReason.STORE_UNAVAILABLE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a failure goes with FAILED events");
    assertThat(event(GateEvent.Type.FAILED, id, FailureReason.STORE_UNAVAILABLE).failure())
        .isEqualTo(FailureReason.STORE_UNAVAILABLE);
  }

  private static GateEvent event(GateEvent.Type type, ClaimId id, FailureReason failure) {
    return new GateEvent(
        type,
        id,
        0,
        null,
        null,
        "m",
        null,
        Instant.EPOCH,
        null,
        Duration.ZERO,
        id.tool(),
        null,
        failure);
  }
}
