package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An operator settles a key with a gate whose policy is not the tool's (the base gate, or the
 * example's status command, with the default 24 h retention) while the tool keeps its results for 7
 * days. The settlement must not shorten what the row already promised: a retry on day 3 is a replay
 * of the settled result, not a second refund.
 */
class ASettlementKeepsTheToolsRetentionTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
  private static final byte[] REFUNDED = "refunded".getBytes(StandardCharsets.UTF_8);
  private static final GatePolicy SEVEN_DAYS =
      GatePolicy.builder().retention(Duration.ofDays(7)).build();

  private static GateResult<String> retry(IdempotencyGate tool, AtomicInteger runs) {
    return tool.execute(CALL, ResultMapper.utf8(), ctx -> "refund " + runs.incrementAndGet());
  }

  @Test
  void aFencedKeySettledByAGateOfShorterRetentionIsReplayedForTheToolsRetention() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate tool = IdempotencyGate.builder(store).policy(SEVEN_DAYS).build();
        IdempotencyGate operator = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired claim = (ClaimOutcome.Acquired) tool.claim(CALL);
      assertThat(tool.markUnknown(claim)).isTrue(); // the refund's outcome was lost
      clock.advance(Duration.ofHours(1));
      assertThat(operator.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)))
          .isTrue();
      clock.advance(Duration.ofDays(3));

      GateResult<String> third = retry(tool, runs);

      assertThat(runs).as("refunds run by the retry on day 3").hasValue(0);
      assertThat(third).isInstanceOf(GateResult.Replayed.class);
    }
  }

  @Test
  void aKeyTakenOverBySuchASettlementIsReplayedForTheToolsRetention() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate tool = IdempotencyGate.builder(store).policy(SEVEN_DAYS).build();
        IdempotencyGate operator = IdempotencyGate.builder(store).build()) {
      tool.claim(CALL); // the refund runs; its process dies, its lease runs out
      clock.advance(Duration.ofMinutes(1));
      assertThat(operator.resolveUnknown(CALL.id(), Reconciler.Verdict.happened(REFUNDED)))
          .isTrue();
      clock.advance(Duration.ofDays(3));

      GateResult<String> third = retry(tool, runs);

      assertThat(runs).as("refunds run by the retry on day 3").hasValue(0);
      assertThat(third).isInstanceOf(GateResult.Replayed.class);
    }
  }
}
