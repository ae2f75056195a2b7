package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Review K. An async tool pays two parties in parallel and waits for both ({@code
 * Mono.whenDelayError}, as a tool that must hear from every call does). Both payments go out and
 * both answers are lost: each signals OutcomeUnknownException. Reactor reports the two together as
 * one {@code Exceptions.multiple(...)} CompositeException, whose errors are its SUPPRESSED
 * exceptions, not its cause. The gate reads only the cause chain, finds no unknown outcome, and
 * releases the key: the retry with the same key pays both parties again.
 */
class CompositeOfUnknownOutcomesReviewTest {
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create())
          .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
          .build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fromTransportContext("tenant")).build();

  @AfterEach
  void close() {
    gate.close();
  }

  private static McpSchema.Tool payoutTool() {
    return McpSchema.Tool.builder(
            "split_payout",
            Map.of("type", "object", "properties", Map.of("order_id", Map.of("type", "string"))))
        .description("Pays the seller and the courier of an order.")
        .build();
  }

  @Test
  void twoUnknownOutcomesTogetherStillFenceTheKey() {
    AtomicInteger payments = new AtomicInteger();
    McpServerFeatures.AsyncToolSpecification payout =
        new McpServerFeatures.AsyncToolSpecification(
            payoutTool(),
            (exchange, request) -> {
              Mono<Void> seller =
                  Mono.fromRunnable(payments::incrementAndGet)
                      .then(Mono.error(new OutcomeUnknownException("seller: no answer")));
              Mono<Void> courier =
                  Mono.fromRunnable(payments::incrementAndGet)
                      .then(Mono.error(new OutcomeUnknownException("courier: no answer")));
              return Mono.whenDelayError(seller, courier)
                  .then(Mono.just(CallToolResult.builder().addTextContent("paid").build()));
            });
    String key = "k-" + java.util.UUID.randomUUID();
    CallToolRequest call =
        new CallToolRequest("split_payout", Map.of("order_id", "ord_1", "idempotency_key", key));
    try (McpHarness harness =
        McpHarness.http(null, List.of(mcpGate.gate(payout, ToolPolicy.defaults())))) {
      McpSyncClient client = harness.client("acme");
      String first;
      try {
        first = String.valueOf(client.callTool(call));
      } catch (RuntimeException e) {
        first = "error " + e.getMessage();
      }
      Optional<ClaimRecord> row = gate.find(new ClaimId("context:acme", "split_payout", key));
      String retry;
      try {
        retry = String.valueOf(client.callTool(call));
      } catch (RuntimeException e) {
        retry = "error " + e.getMessage();
      }
      assertThat(payments)
          .as("payments sent; first=%s row after it=%s retry=%s", first, row, retry)
          .hasValue(2);
    }
  }
}
