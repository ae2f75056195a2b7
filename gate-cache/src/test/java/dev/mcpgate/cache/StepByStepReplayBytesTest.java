package dev.mcpgate.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A step-by-step replay served from the cache does not share the cache's bytes (review). */
class StepByStepReplayBytesTest {

  /**
   * The step-by-step API (IdempotencyGate.claim) hands a replay's StoredResult to the caller; with
   * the default identity codec its body is the very array the cache keeps. A caller that changes it
   * (decrypting in place, zeroing a buffer after use) changes every later replay of that key in
   * this process, served from the cache, while the store (a JDBC store reads fresh bytes each time)
   * still holds and would replay the original. Without the cache, over the JDBC store, the second
   * replay is the stored result.
   */
  @Test
  void aStepByStepReplayDoesNotShareTheCachedBytes() {
    try (JdbcIdempotencyStore jdbc = H2.store()) {
      ReplayCache cache = ReplayCache.builder(jdbc).build();
      try (IdempotencyGate gate = IdempotencyGate.builder(cache).build()) {
        ToolCall call =
            ToolCall.of("t-" + UUID.randomUUID(), "refund_order", "k", Map.of("order", "o-1"));
        ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) gate.claim(call);
        assertThat(gate.complete(acquired, new byte[] {1, 2, 3}, false)).isTrue();

        // first replay reads the store and fills the cache; the caller then wipes its bytes
        ClaimOutcome.Replayed first = (ClaimOutcome.Replayed) gate.claim(call);
        assertThat(first.result().body()).containsExactly(1, 2, 3);
        Arrays.fill(first.result().body(), (byte) 0);

        ClaimOutcome.Replayed second = (ClaimOutcome.Replayed) gate.claim(call);
        assertThat(cache.stats().hits()).isEqualTo(1);
        assertThat(jdbc.find(call.id()).orElseThrow().result().body()).containsExactly(1, 2, 3);
        assertThat(second.result().body())
            .as("the second replay, from the cache, must be what the store holds")
            .containsExactly(1, 2, 3);
      }
    }
  }
}
