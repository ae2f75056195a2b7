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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Finding: a gate closed between the claim and the action is {@code Failed(GATE_CLOSED)} only for a
 * policy that renews leases. {@code LeaseRenewer.start} checks {@code closed} only after it has
 * joined a renewal group; a policy with {@code leaseRenewal(Duration.ZERO)} (or a {@code
 * withPolicy} sibling with one) returns before that check, and nothing later looks at the gate.
 *
 * <p>Interleaving: the call passes {@code checkOpen}, its claim is written, and the application
 * closes the gate before the claim's answer comes back (here: inside the store's {@code claim}, as
 * {@code ClosedGateTest} does). Expected, as for a renewing policy and as the CHANGELOG says ("also
 * when the gate closes between the claim and the action"): {@code Failed(GATE_CLOSED)}, the claim
 * released, the action not run. What happens: the action runs on the closed gate and the call is
 * {@code Executed}.
 */
class GateClosedBeforeActionWithoutRenewalRunsTheActionTest {
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
  private final AtomicInteger runs = new AtomicInteger();

  private String refund(ClaimContext ctx) {
    runs.incrementAndGet();
    return "refunded";
  }

  private GateResult<String> callClosingOnClaim(GatePolicy policy, String key) {
    AtomicReference<IdempotencyGate> closing = new AtomicReference<>();
    AtomicBoolean closeNow = new AtomicBoolean(true);
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            ClaimAttempt attempt = super.claim(request);
            if (closeNow.getAndSet(false)) {
              closing.get().close(); // the application stops between the claim and the action
            }
            return attempt;
          }
        };
    IdempotencyGate base = IdempotencyGate.builder(store).build();
    IdempotencyGate gate = base.withPolicy(policy);
    closing.set(base); // closing the gate it came from closes its engine, as close() says
    return gate.execute(
        ToolCall.of("acme", "refund_order", key, Map.of("order", "o-1")),
        ResultMapper.utf8(),
        this::refund);
  }

  @Test
  void aRenewingPolicyIsToldGateClosed() {
    GateResult<String> result = callClosingOnClaim(GatePolicy.defaults(), "k-renewing");

    assertThat(result).isInstanceOf(GateResult.Failed.class);
    assertThat(((GateResult.Failed<?>) result).reason()).isEqualTo(FailureReason.GATE_CLOSED);
    assertThat(runs).hasValue(0);
  }

  @Test
  void aPolicyWithoutRenewalRunsTheActionOnTheClosedGate() {
    GatePolicy noRenewal = GatePolicy.builder().leaseRenewal(Duration.ZERO).build();

    GateResult<String> result = callClosingOnClaim(noRenewal, "k-no-renewal");

    assertThat(runs)
        .as("the gate closed before the action started; the action must not run (got %s)", result)
        .hasValue(0);
    assertThat(result).isInstanceOf(GateResult.Failed.class);
    assertThat(((GateResult.Failed<?>) result).reason()).isEqualTo(FailureReason.GATE_CLOSED);
  }
}
