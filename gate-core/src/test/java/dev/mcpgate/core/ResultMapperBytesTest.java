package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ResultMapper#bytes()} over the in-memory store, which keeps the very array it was given
 * and hands the same one to every replay: the arrays the caller holds are its own.
 */
class ResultMapperBytesTest {

  @Test
  void changingTheArraysTheCallerWasGivenChangesNoReplay() {
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build()) {
      ToolCall call = ToolCall.of("acme", "export", "k", Map.of());
      byte[] returned = {1, 2, 3};

      GateResult<byte[]> first = gate.execute(call, ResultMapper.bytes(), ctx -> returned);
      Arrays.fill(returned, (byte) 9); // the action's own array, after the call
      for (int i = 0; i < 3; i++) {
        GateResult<byte[]> replay = gate.execute(call, ResultMapper.bytes(), ctx -> returned);
        byte[] value = ((GateResult.Replayed<byte[]>) replay).value();
        assertThat(value).containsExactly(1, 2, 3);
        Arrays.fill(value, (byte) 0); // the replay's array
      }
      assertThat(first).isInstanceOf(GateResult.Executed.class);
    }
  }
}
