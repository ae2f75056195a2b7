package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Finding: the GATE_CLOSED check sits in {@code LeaseRenewer.start} only. A gate that closes after
 * the renewal started but before the action (the unit of work waiting for a pooled connection in
 * {@code scope.begin()}, the usual place a shutdown overtakes a call) stops the attempt's renewal,
 * and {@code confirmBeforeAction} still answers YES: it looks at a lost lease and the clock, not at
 * a renewal that was stopped by {@code close()}. The action then starts on a closed gate, with no
 * renewal for the rest of its run: past its lease another instance may take the key over and run
 * the effect again.
 *
 * <p>Interleaving: claim acquired, renewal started, {@code close()} while {@code begin()} waits,
 * then the action. Expected: {@code Failed(GATE_CLOSED)}, nothing run, the claim released (as when
 * the gate closes a moment earlier, before the renewal starts). What happens: the action runs, and
 * it runs with no lease renewal ({@code renewing} is 0 inside the action).
 */
class GateClosedWhileUnitOfWorkBeginsRunsTheActionTest {
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();

  /** A unit of work whose begin() is where the application's shutdown overtakes the call. */
  private static final class ClosingScope implements TransactionScope<Object> {
    final AtomicReference<IdempotencyGate> gate = new AtomicReference<>();
    final InMemoryIdempotencyStore store;

    ClosingScope(InMemoryIdempotencyStore store) {
      this.store = store;
    }

    @Override
    public Object begin() {
      gate.get().close(); // shutdown while the call waits for its connection
      return new Object();
    }

    @Override
    public boolean complete(
        Object r, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      return store.complete(id, token, result, retention);
    }

    @Override
    public boolean release(Object r, ClaimId id, LeaseToken token) {
      return store.release(id, token);
    }

    @Override
    public void commit(Object r) {}

    @Override
    public void rollback(Object r) {}

    @Override
    public void close(Object r) {}
  }

  @Test
  void anActionDoesNotStartOnAGateThatClosedWhileItsUnitOfWorkBegan() {
    IdempotencyGate gate = IdempotencyGate.builder(memory).build();
    ClosingScope scope = new ClosingScope(memory);
    scope.gate.set(gate);
    AtomicInteger runs = new AtomicInteger();
    AtomicReference<Boolean> leaseKnownLost = new AtomicReference<>();

    GateResult<String> result =
        gate.execute(
            ToolCall.of("acme", "refund_order", "k-begin", Map.of("order", "o-1")),
            ResultMapper.utf8(),
            scope,
            (resource, ctx) -> {
              runs.incrementAndGet();
              leaseKnownLost.set(ctx.mayHaveLostLease());
              return "refunded";
            });

    assertThat(runs)
        .as(
            "the gate closed before the action started (lease renewal already stopped, lease"
                + " thought lost: %s); result %s",
            leaseKnownLost.get(), result)
        .hasValue(0);
    assertThat(result).isInstanceOf(GateResult.Failed.class);
    assertThat(((GateResult.Failed<?>) result).reason()).isEqualTo(FailureReason.GATE_CLOSED);
  }
}
