package dev.mcpgate.core;

import static dev.mcpgate.core.Failures.failed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A call that reaches a closed gate, or whose gate closes before its action starts, is a value that
 * says the truth: {@code Failed(GATE_CLOSED)}, nothing ran, a retry with the same key is safe. It
 * was an {@link IllegalStateException} (or, in the race, a store failure), which the MCP adapter
 * told a model as "executed: unknown".
 */
class ClosedGateTest {
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order", "o-1"));
  }

  private String refund(ClaimContext ctx) {
    runs.incrementAndGet();
    return "refunded";
  }

  @Test
  void aCallToAClosedGateFailsAsGateClosedAndRunsNothing() {
    IdempotencyGate gate = IdempotencyGate.builder(memory).listener(events::add).build();
    gate.close();

    GateResult<String> result = gate.execute(call("k-1"), ResultMapper.utf8(), this::refund);

    GateResult.Failed<?> failed = failed(result, FailureReason.GATE_CLOSED);
    assertThat(failed.effect()).isEqualTo(GateResult.Effect.NO);
    assertThat(failed.retrySafe()).isTrue();
    assertThat(failed.attempt()).isZero();
    assertThat(runs).hasValue(0);
    assertThat(events).extracting(GateEvent::outcome).containsExactly("failed.gate_closed");
    assertThatThrownBy(result::orThrow)
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("closed");
    try (IdempotencyGate open = IdempotencyGate.builder(memory).build()) {
      assertThat(open.execute(call("k-1"), ResultMapper.utf8(), this::refund))
          .as("nothing was claimed: a retry to an open gate runs it")
          .isInstanceOf(GateResult.Executed.class);
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void aSingleCommitCallToAClosedGateFailsAsGateClosed() {
    IdempotencyGate gate = IdempotencyGate.builder(memory).build();
    gate.close();
    FailedResultReviewTest.Unit unit = new FailedResultReviewTest.Unit(memory);

    GateResult<String> result =
        gate.executeSingleCommit(
            call("k-2"), ResultMapper.utf8(), unit, (undo, ctx) -> refund(ctx));

    assertThat(failed(result, FailureReason.GATE_CLOSED).effect()).isEqualTo(GateResult.Effect.NO);
    assertThat(runs).hasValue(0);
  }

  @Test
  void aGateClosedWhileItsCallIsClaimedReleasesTheClaimAndRunsNothing() {
    AtomicReference<IdempotencyGate> closing = new AtomicReference<>();
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            ClaimAttempt attempt = super.claim(request);
            closing.get().close(); // the application stops between the claim and the action
            return attempt;
          }
        };
    IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build();
    closing.set(gate);

    GateResult<String> result = gate.execute(call("k-3"), ResultMapper.utf8(), this::refund);

    GateResult.Failed<?> failed = failed(result, FailureReason.GATE_CLOSED);
    assertThat(failed.effect()).isEqualTo(GateResult.Effect.NO);
    assertThat(failed.retrySafe()).isTrue();
    assertThat(runs).hasValue(0);
    assertThat(events)
        .extracting(GateEvent::type)
        .as(
            "released before its action: never told acquired (its action did not run), and the"
                + " call's one decision is its failure")
        .containsExactly(GateEvent.Type.RELEASED, GateEvent.Type.FAILED);
    assertThat(events.get(0).message()).startsWith("the action did not start;");
    try (IdempotencyGate open = IdempotencyGate.builder(memory).build()) {
      assertThat(open.execute(call("k-3"), ResultMapper.utf8(), this::refund))
          .as("the claim was released: a retry runs at once, with no lease to wait out")
          .isInstanceOf(GateResult.Executed.class);
    }
    assertThat(runs).hasValue(1);
  }
}
