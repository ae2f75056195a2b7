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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Review L. An async tool notifies 70 couriers in parallel and waits for every answer ({@code
 * Flux.flatMapDelayError}). 69 are refused at once (nothing sent: a plain failure each); the 70th
 * goes out and its answer is lost, so it fails last with OutcomeUnknownException. Reactor reports
 * all 70 as one CompositeException whose errors are its suppressed exceptions, in the order they
 * came: the unknown one is the 70th. UnknownOutcomes reads at most 64 throwables and, its budget
 * spent with the composite not read to the end, answers "not unknown": the key is released and the
 * retry sends the 70th notification again.
 */
class LargeCompositeOfFailuresReviewTest {
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

  @Test
  void anUnknownOutcomeAfterManyPlainFailuresStillFencesTheKey() {
    AtomicInteger sent = new AtomicInteger();
    McpServerFeatures.AsyncToolSpecification notify =
        new McpServerFeatures.AsyncToolSpecification(
            McpSchema.Tool.builder(
                    "notify_couriers",
                    Map.of(
                        "type",
                        "object",
                        "properties",
                        Map.of("order_id", Map.of("type", "string"))))
                .description("Notifies every courier of an order.")
                .build(),
            (exchange, request) ->
                Flux.range(0, 70)
                    .flatMapDelayError(
                        i ->
                            i < 69
                                ? Mono.<Void>error(
                                    new IllegalStateException("courier " + i + " refused"))
                                : Mono.delay(Duration.ofMillis(50))
                                    .doOnNext(x -> sent.incrementAndGet())
                                    .then(
                                        Mono.<Void>error(
                                            new OutcomeUnknownException(
                                                "courier " + i + ": sent, no answer"))),
                        70,
                        1)
                    .then(Mono.just(CallToolResult.builder().addTextContent("sent").build())));
    String key = "k-" + java.util.UUID.randomUUID();
    CallToolRequest call =
        new CallToolRequest("notify_couriers", Map.of("order_id", "ord_1", "idempotency_key", key));
    try (McpHarness harness =
        McpHarness.http(null, List.of(mcpGate.gate(notify, ToolPolicy.defaults())))) {
      McpSyncClient client = harness.client("acme");
      String first = answer(client, call);
      Optional<ClaimRecord> row = gate.find(new ClaimId("context:acme", "notify_couriers", key));
      String retry = answer(client, call);
      assertThat(sent)
          .as("notifications sent; first=%s%n row after it=%s%n retry=%s", first, row, retry)
          .hasValue(1);
    }
  }

  private static String answer(McpSyncClient client, CallToolRequest call) {
    try {
      return String.valueOf(client.callTool(call));
    } catch (RuntimeException e) {
      return "error " + e.getMessage();
    }
  }
}
