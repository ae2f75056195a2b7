package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, "Events": "REPLAYED | a stored result was returned; nothing ran", and "Each type
 * says exactly what happened, and nothing is emitted for what did not".
 *
 * <p>What happens: the claimer tells REPLAYED as soon as the codec has decoded the stored bytes;
 * the result mapper reads them afterwards, in GateEngine.readBack. When the mapper cannot read them
 * the caller gets {@code Failed(RESULT_UNREADABLE)}, no result, yet the listeners (metrics tag
 * {@code replayed}, the audit) were told a stored result was returned, and nothing tells them of
 * the failure.
 *
 * <p>Kept as a known limit, documented in docs/design.md ("Events"): the claimer tells the decision
 * it made (a stored result found and decoded); the tool's own mapper reads it after. This test pins
 * that: it fails when the limit is lifted, and the doc is then to be changed with it.
 */
class UnreadableReplayIsToldAsReplayedTest {

  @Test
  void aReplayTheMapperCannotReadIsToldAsReplayedAKnownLimit() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
    List<GateEvent> events = new CopyOnWriteArrayList<>();
    ToolCall call = ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
    ResultMapper<String> changed =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
          }

          @Override
          public String fromBytes(byte[] bytes) {
            throw new IllegalArgumentException("not a refund of the new format (test)");
          }
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build()) {
      gate.execute(call, ResultMapper.utf8(), ctx -> "refunded");
      events.clear();

      GateResult<String> r = gate.execute(call, changed, ctx -> "never");

      assertThat(r)
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> assertThat(f.reason()).isEqualTo(FailureReason.RESULT_UNREADABLE));
      assertThat(events)
          .extracting(GateEvent::type)
          .as("told as the claimer decided it, and nothing after")
          .containsExactly(GateEvent.Type.REPLAYED);
    }
  }
}
