package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, "Events": "A listener that throws is logged at WARN and does not change the
 * outcome."
 *
 * <p>What happens: Events.publish catches RuntimeException only. A listener that throws an Error (a
 * metrics library of another version: NoSuchMethodError on its first event) escapes from the
 * claimer after the key was claimed: execute throws, the action does not run, and the key is left
 * IN_PROGRESS, unrenewed, so that retries are held off for a lease.
 */
class ListenerErrorChangesTheOutcomeTest {

  @Test
  void aListenerThatThrowsAnErrorOnAcquiredDoesNotChangeTheOutcome() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .listener(
                e -> {
                  if (e.type() == GateEvent.Type.ACQUIRED) {
                    throw new NoSuchMethodError("io.micrometer.core.instrument.Counter.increment");
                  }
                })
            .build()) {
      GateResult<String> r = null;
      Throwable thrown = null;
      try {
        r =
            gate.execute(
                ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2")),
                ResultMapper.utf8(),
                ctx -> {
                  runs.incrementAndGet();
                  return "refunded";
                });
      } catch (Throwable t) {
        thrown = t;
      }
      assertThat(thrown).as("the listener's Error reached the caller").isNull();
      assertThat(r).isInstanceOf(GateResult.Executed.class);
      assertThat(runs).hasValue(1);
      assertThat(store.find(new ClaimId("acme", "refund_order", "k")))
          .hasValueSatisfying(row -> assertThat(row.result()).isNotNull());
    }
  }
}
