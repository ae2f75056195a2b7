package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOError;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Reviewer G. The fix of AsyncTimeoutOutcomeUnknownReviewTest unwraps Reactor's {@code
 * ReactiveException} only when what it wraps is an {@code Exception}; {@code block()} wraps a
 * non-fatal {@code Error} (an {@code IOError}, an {@code AssertionError}, an application's own) in
 * it too. A policy whose {@code outcomeUnknownWhen} names such an Error (docs: "what it fails with
 * reaches the policy as signalled") sees the wrapper on an async tool: the key is released, and the
 * retry with the same key sends the payment again. On a sync tool the same Error fences the key.
 */
class AsyncErrorOutcomeUnknownReviewTest {
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create())
          .policy(
              GatePolicy.builder()
                  .inFlightWait(Duration.ZERO)
                  .outcomeUnknownWhen(t -> t instanceof IOError)
                  .build())
          .build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fixed("acme")).build();

  @AfterEach
  void close() {
    gate.close();
  }

  @Test
  void anErrorThePolicyCallsUnknownFencesTheKeyOnAnAsyncTool() {
    AtomicInteger paymentsSent = new AtomicInteger();
    McpServerFeatures.AsyncToolSpecification refund =
        mcpGate.gate(
            new McpServerFeatures.AsyncToolSpecification(
                McpSchema.Tool.builder(
                        "refund_order",
                        Map.of(
                            "type",
                            "object",
                            "properties",
                            Map.of("order_id", Map.of("type", "string"))))
                    .description("Refund an order.")
                    .build(),
                (exchange, request) ->
                    Mono.fromCallable(
                        () -> {
                          // the request went out; the connection broke before its answer
                          if (paymentsSent.incrementAndGet() == 1) {
                            throw new IOError(new IOException("connection reset"));
                          }
                          return CallToolResult.builder().addTextContent("refunded").build();
                        })),
            ToolPolicy.defaults());
    String key = "k-" + java.util.UUID.randomUUID();
    CallToolRequest call =
        new CallToolRequest("refund_order", Map.of("order_id", "ord_1", "idempotency_key", key));

    Throwable first = null;
    try {
      refund.callHandler().apply(null, call).block(Duration.ofSeconds(10));
    } catch (Throwable t) {
      first = t;
    }
    Optional<ClaimRecord> row = gate.find(new ClaimId("constant:acme", "refund_order", key));
    try {
      refund.callHandler().apply(null, call).block(Duration.ofSeconds(10));
    } catch (Throwable retryFailed) {
      // the outcome-unknown answer
    }

    assertThat(paymentsSent)
        .as(
            "the retry with the same key must not send the payment again (row after the"
                + " first call: %s; the caller got %s)",
            row.map(ClaimRecord::state), first)
        .hasValue(1);
    assertThat(row).map(ClaimRecord::state).contains(ClaimState.UNKNOWN);
  }

  @Test
  void theSameErrorFencesTheKeyOnASyncTool() {
    AtomicInteger paymentsSent = new AtomicInteger();
    McpServerFeatures.SyncToolSpecification refund =
        mcpGate.gate(
            new McpServerFeatures.SyncToolSpecification(
                McpSchema.Tool.builder(
                        "refund_order",
                        Map.of(
                            "type",
                            "object",
                            "properties",
                            Map.of("order_id", Map.of("type", "string"))))
                    .description("Refund an order.")
                    .build(),
                (exchange, request) -> {
                  if (paymentsSent.incrementAndGet() == 1) {
                    throw new IOError(new IOException("connection reset"));
                  }
                  return CallToolResult.builder().addTextContent("refunded").build();
                }),
            ToolPolicy.defaults());
    String key = "k-" + java.util.UUID.randomUUID();
    CallToolRequest call =
        new CallToolRequest("refund_order", Map.of("order_id", "ord_1", "idempotency_key", key));
    try {
      refund.callHandler().apply(null, call);
    } catch (Throwable t) {
      // the handler's Error, thrown on
    }
    Optional<ClaimRecord> row = gate.find(new ClaimId("constant:acme", "refund_order", key));
    refund.callHandler().apply(null, call);
    assertThat(row).map(ClaimRecord::state).contains(ClaimState.UNKNOWN);
    assertThat(paymentsSent).hasValue(1);
  }
}
