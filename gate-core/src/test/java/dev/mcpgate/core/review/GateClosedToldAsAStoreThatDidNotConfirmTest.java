package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Finding: a gate that closes between the claim and the action, for a claim whose answer came late
 * (more than half the lease after it was sent), is told as a store failure that did not happen.
 * With no renewal, {@code LeaseRenewer.start} does not look at the gate; {@code
 * confirmBeforeAction} then asks the store to confirm the lease through {@code workers()}, which
 * throws {@code RejectedExecutionException} on a closed gate; that is read as {@code Held.UNKNOWN},
 * and {@code FailureSettler.notStarted} answers {@code STORE_UNAVAILABLE}: "the lease ... ran out
 * before its action could start (this process was paused ...), and the store did not confirm it in
 * time". The store was never asked; the gate was closed.
 *
 * <p>Interleaving: lease 400 ms without renewal; the claim's answer takes 250 ms, and the gate is
 * closed meanwhile. Expected: {@code Failed(GATE_CLOSED)} (nothing ran, as it did not). What
 * happens: {@code Failed(STORE_UNAVAILABLE)} with a message blaming a pause and the store.
 */
class GateClosedToldAsAStoreThatDidNotConfirmTest {
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
  private final AtomicInteger runs = new AtomicInteger();

  private String refund(ClaimContext ctx) {
    runs.incrementAndGet();
    return "refunded";
  }

  @Test
  void aClosedGateIsToldAsClosedNotAsAStoreThatDidNotAnswer() {
    AtomicReference<IdempotencyGate> closing = new AtomicReference<>();
    ForwardingIdempotencyStore slowClaim =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            ClaimAttempt attempt = super.claim(request);
            try {
              Thread.sleep(250); // the claim's answer comes late
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            closing.get().close(); // and the application stops meanwhile
            return attempt;
          }
        };
    GatePolicy policy =
        GatePolicy.builder().lease(Duration.ofMillis(400)).leaseRenewal(Duration.ZERO).build();
    IdempotencyGate gate = IdempotencyGate.builder(slowClaim).policy(policy).build();
    closing.set(gate);

    GateResult<String> result =
        gate.execute(
            ToolCall.of("acme", "refund_order", "k-late", Map.of("order", "o-1")),
            ResultMapper.utf8(),
            this::refund);

    assertThat(runs).hasValue(0);
    assertThat(result).isInstanceOf(GateResult.Failed.class);
    GateResult.Failed<?> failed = (GateResult.Failed<?>) result;
    assertThat(failed.reason()).as(failed.message()).isEqualTo(FailureReason.GATE_CLOSED);
  }
}
