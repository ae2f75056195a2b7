package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A call refused before the gate claims anything is a {@link GateEvent.Type#REJECTED} event: told
 * by an adapter through {@link IdempotencyGate#rejected}, or by the gate itself for arguments it
 * cannot hash; by tool, reason and key source, without a claim id.
 */
class RejectionEventTest {
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).listener(events::add).build();

  @Test
  void anAdaptersRejectionReachesTheListenersByToolReasonAndKeySource() {
    gate.rejected("refund_order", RejectionReason.KEY_INVALID, "meta");

    assertThat(events).hasSize(1);
    GateEvent e = events.get(0);
    assertThat(e.type()).isEqualTo(GateEvent.Type.REJECTED);
    assertThat(e.tool()).isEqualTo("refund_order");
    assertThat(e.rejection()).isEqualTo(RejectionReason.KEY_INVALID);
    assertThat(e.keySource()).isEqualTo("meta");
    assertThat(e.id()).isNull();
    assertThat(e.reason()).isNull();
    assertThat(e.attempt()).isZero();
    assertThat(e.outcome()).isEqualTo("rejected.key_invalid");
    assertThat(e.attemptResult()).isNull();
    assertThat(e.isTakeover()).isFalse();
  }

  @Test
  void argumentsTheGateCannotHashAreRejectedBeforeAnyClaim() {
    GateResult<String> r =
        gate.execute(
            ToolCall.of("acme", "refund_order", "k-1", Map.of("amount", Double.NaN))
                .withKeySource("argument"),
            ResultMapper.utf8(),
            ctx -> "never");

    assertThat(r).isInstanceOf(GateResult.Failed.class);
    assertThat(((GateResult.Failed<String>) r).reason()).isEqualTo(FailureReason.ARGUMENTS_INVALID);
    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.rejection()).isEqualTo(RejectionReason.ARGUMENTS_INVALID);
              assertThat(e.tool()).isEqualTo("refund_order");
              assertThat(e.keySource()).isEqualTo("argument");
              assertThat(e.toString()).doesNotContain("acme", "k-1");
            });
    assertThat(gate.find(new ClaimId("acme", "refund_order", "k-1"))).isEmpty();
  }

  private static GateEvent event(
      GateEvent.Type type, ClaimId id, String tool, RejectionReason rejection) {
    return new GateEvent(
        type,
        id,
        1,
        null,
        null,
        "m",
        null,
        Instant.EPOCH,
        null,
        Duration.ZERO,
        tool,
        rejection,
        null);
  }

  @Test
  void aRejectionHasNoClaimAndOnlyARejectionHasARejectionReason() {
    ClaimId id = new ClaimId("acme", "refund_order", "k-1");
    assertThat(GateEvent.rejected("t", RejectionReason.FORBIDDEN, "m", Instant.EPOCH, null).tool())
        .isEqualTo("t");
    assertThat(event(GateEvent.Type.ACQUIRED, id, "refund_order", null).tool())
        .isEqualTo("refund_order");
    assertThatThrownBy(
            () -> event(GateEvent.Type.REJECTED, id, "refund_order", RejectionReason.FORBIDDEN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no claim id");
    assertThatThrownBy(() -> event(GateEvent.Type.REJECTED, null, "refund_order", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> event(GateEvent.Type.ACQUIRED, id, "refund_order", RejectionReason.FORBIDDEN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> event(GateEvent.Type.ACQUIRED, id, "other_tool", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("other_tool");
    assertThatThrownBy(() -> event(GateEvent.Type.ACQUIRED, null, "refund_order", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("id");
    assertThatThrownBy(() -> event(GateEvent.Type.ACQUIRED, id, null, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("tool");
  }

  @Test
  void argumentsAreChecked() {
    assertThatThrownBy(() -> gate.rejected(null, RejectionReason.KEY_REQUIRED, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("tool");
    assertThatThrownBy(() -> gate.rejected("refund_order", null, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("rejection");
  }
}
