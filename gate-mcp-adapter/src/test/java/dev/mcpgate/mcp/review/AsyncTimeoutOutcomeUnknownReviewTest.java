package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Reviewer F. An async tool whose downstream call times out: the handler's Mono signals Reactor's
 * own {@code java.util.concurrent.TimeoutException} ({@code Mono.timeout}), and the gate's policy
 * says exactly that exception means "the outcome is unknown" (the doc's example: "a timeout on a
 * downstream call"). On a sync handler the policy sees the exception; on an async one the adapter
 * waits with {@code block()}, which wraps a checked exception in Reactor's {@code
 * ReactiveException}, so the policy sees the wrapper, not the timeout: the key is released as an
 * ordinary failure, and the retry, with the same key, pays the refund a second time.
 */
class AsyncTimeoutOutcomeUnknownReviewTest {
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create())
          .policy(
              GatePolicy.builder()
                  .inFlightWait(Duration.ZERO)
                  .outcomeUnknownWhen(t -> t instanceof TimeoutException)
                  .build())
          .build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fromTransportContext("tenant")).build();

  @AfterEach
  void close() {
    gate.close();
  }

  private static McpSchema.Tool refundTool() {
    return McpSchema.Tool.builder(
            "refund_order",
            Map.of(
                "type",
                "object",
                "properties",
                Map.of(
                    "order_id",
                    Map.of("type", "string"),
                    "amount_cents",
                    Map.of("type", "number"))))
        .description("Refund part of an order.")
        .build();
  }

  private static CallToolRequest refund(String key) {
    return new CallToolRequest(
        "refund_order", Map.of("order_id", "ord_1", "amount_cents", 500, "idempotency_key", key));
  }

  @Test
  void aTimeoutThePolicyCallsUnknownFencesTheKeyOnAnAsyncToolToo() {
    AtomicInteger paymentsSent = new AtomicInteger();
    AtomicInteger attempts = new AtomicInteger();
    McpServerFeatures.AsyncToolSpecification refund =
        new McpServerFeatures.AsyncToolSpecification(
            refundTool(),
            (exchange, request) -> {
              // the payment provider gets the request, then its answer is late: first attempt only
              boolean slow = attempts.incrementAndGet() == 1;
              return Mono.fromCallable(
                      () -> {
                        paymentsSent.incrementAndGet();
                        return CallToolResult.builder().addTextContent("refunded").build();
                      })
                  .delayElement(slow ? Duration.ofSeconds(5) : Duration.ZERO)
                  .timeout(Duration.ofMillis(300));
            });
    String key = "k-" + java.util.UUID.randomUUID();
    try (McpHarness harness =
        McpHarness.http(null, List.of(mcpGate.gate(refund, ToolPolicy.defaults())))) {
      McpSyncClient client = harness.client("acme");

      try {
        client.callTool(refund(key));
      } catch (RuntimeException timedOut) {
        // the SDK answers the handler's failure as a JSON-RPC error: what the model sees of it
      }
      Optional<ClaimRecord> row = gate.find(new ClaimId("context:acme", "refund_order", key));
      CallToolResult retry = client.callTool(refund(key));

      assertThat(paymentsSent)
          .as("the retry with the same key must not send the payment again (%s)", retry)
          .hasValue(1);
      assertThat(row)
          .as("a failure the policy names as unknown fences the key, never frees it")
          .map(ClaimRecord::state)
          .contains(ClaimState.UNKNOWN);
    }
  }
}
