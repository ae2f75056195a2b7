package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A step-by-step replay's result bytes are the caller's own: the in-memory store (and the replay
 * cache) keep the array they return, so a caller that wiped or decrypted it in place changed every
 * later replay of the key in the process (found in review).
 */
class StepReplayBytesTest {
  @Test
  void aCallerThatChangesAReplaysBytesChangesNoLaterReplay() {
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build()) {
      ToolCall call = ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "o-1"));
      ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) gate.claim(call);
      assertThat(gate.complete(acquired, new byte[] {1, 2, 3}, false)).isTrue();

      ClaimOutcome.Replayed first = (ClaimOutcome.Replayed) gate.claim(call);
      Arrays.fill(first.result().body(), (byte) 0);

      ClaimOutcome.Replayed second = (ClaimOutcome.Replayed) gate.claim(call);
      assertThat(second.result().body()).containsExactly(1, 2, 3);
    }
  }
}
