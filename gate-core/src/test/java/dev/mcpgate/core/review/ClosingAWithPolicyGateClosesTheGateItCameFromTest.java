package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Finding (low; the footgun is old, its answer is new): {@code IdempotencyGate.close()} says it
 * stops renewing "for this gate and every gate {@code withPolicy} made from it" and that "calls
 * after it are refused with {@link IllegalStateException}". Both are wrong now: the engine is
 * shared, so closing a per-tool gate made by {@code withPolicy} (an {@link AutoCloseable}, which
 * IDEs ask to close, e.g. in a try-with-resources) closes the gate it came from and every sibling;
 * and their calls are no longer an exception a developer would see in a test, but a quiet {@code
 * Failed(GATE_CLOSED)}, which the MCP adapter tells the model as "the server is shutting down".
 *
 * <p>Input: {@code gate.withPolicy(p)} closed; then a call through {@code gate}. Expected, as the
 * Javadoc words it: the gate that was not closed runs the call. What happens: {@code
 * Failed(GATE_CLOSED)}.
 */
class ClosingAWithPolicyGateClosesTheGateItCameFromTest {

  @Test
  void closingAPerToolGateLeavesTheGateItCameFromOpen() {
    IdempotencyGate gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    try (IdempotencyGate perTool =
        gate.withPolicy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())) {
      perTool.execute(
          ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "o-1")),
          ResultMapper.utf8(),
          ctx -> "refunded");
    }

    GateResult<String> result =
        gate.execute(
            ToolCall.of("acme", "cancel_order", "k-2", Map.of("order", "o-2")),
            ResultMapper.utf8(),
            ctx -> "cancelled");

    assertThat(result).as("%s", result).isInstanceOf(GateResult.Executed.class);
  }
}
