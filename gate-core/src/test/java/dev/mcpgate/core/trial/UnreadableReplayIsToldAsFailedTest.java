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
 * <p>The claimer used to tell REPLAYED as soon as the codec had decoded the stored bytes, before
 * the tool's result mapper read them; when the mapper could not, the caller got {@code
 * Failed(RESULT_UNREADABLE)} while the listeners (the {@code replayed} meter, the audit) had been
 * told a stored result was returned. A replay is now told once its result was read, and one that
 * cannot be read is told as the failure it is.
 */
class UnreadableReplayIsToldAsFailedTest {

  @Test
  void aReplayTheMapperCannotReadIsToldAsFailedNotReplayed() {
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
          .extracting(GateEvent::outcome)
          .as("one decision: the failure the caller got")
          .containsExactly("failed.result_unreadable");
    }
  }
}
