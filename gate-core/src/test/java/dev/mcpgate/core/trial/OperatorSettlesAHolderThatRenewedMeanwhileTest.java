package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, "The one takeover rule": an unknown outcome is settled by "someone who knows ...
 * with its token (the reconciler, or an operator's gate.resolveUnknown)"; IdempotencyGate
 * .resolveUnknown: it settles a row "fenced as unknown, or in progress with its lease run out on
 * the store's clock", and "the write is conditional on the row read (its token), so a concurrent
 * change wins".
 *
 * <p>What happens: ClaimSteps.resolveUnknown reads the row, checks that its lease has run out, then
 * releases it by token only. A holder that was paused past its lease and renews between the read
 * and the release (a renewal keeps the token) loses its live row: the release deletes it, and the
 * next retry runs the action as a first attempt while the holder is still running it. The rows a
 * store's token-checked release can tell apart do not include "lease run out", so the check made on
 * the read is not the condition of the write.
 */
class OperatorSettlesAHolderThatRenewedMeanwhileTest {

  @Test
  void aHolderThatRenewedAfterTheOperatorsReadKeepsItsKey() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create(clock);
    AtomicReference<Runnable> afterNextFind = new AtomicReference<>();
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public Optional<ClaimRecord> find(ClaimId id) {
            Optional<ClaimRecord> row = super.find(id);
            Runnable hook = afterNextFind.getAndSet(null);
            if (hook != null) {
              hook.run();
            }
            return row;
          }
        };
    ToolCall call = ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(call);
      runs.incrementAndGet(); // the holder's action is running
      clock.advance(Duration.ofSeconds(6)); // paused past its 5 s lease
      // the holder wakes and renews just after the operator's read
      afterNextFind.set(() -> assertThat(gate.extendLease(holder, Duration.ofSeconds(5))).isTrue());

      boolean settled = gate.resolveUnknown(call.id(), Reconciler.Verdict.notHappened());

      GateResult<String> retry =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "refunded again";
              });
      assertThat(runs).as("the action ran while its holder still held a live lease").hasValue(1);
      assertThat(settled).as("a live holder's row is not settled").isFalse();
      assertThat(retry).isInstanceOf(GateResult.Refused.class);
    }
  }
}
