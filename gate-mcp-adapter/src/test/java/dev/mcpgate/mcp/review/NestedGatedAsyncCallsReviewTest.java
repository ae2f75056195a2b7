package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Review: a gated async tool whose handler composes another gated async tool of the same McpGate (a
 * checkout that charges through the gated {@code charge} tool, with a key derived from its own).
 * While gated async calls waited on a bounded pool (bounded-elastic, then a pool of the adapter's
 * as large), a burst of outer calls as large as the pool held every thread waiting for an inner
 * call queued behind them: no call ended, and each outer key stayed claimed, its lease renewed by
 * the live process. Each waiting call now has a thread of its own, and none queues.
 */
class NestedGatedAsyncCallsReviewTest {
  private static final int BURST = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE + 2;

  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fixed("acme")).build();

  @AfterEach
  void close() {
    gate.close();
  }

  private static McpSchema.Tool tool(String name) {
    return McpSchema.Tool.builder(
            name,
            Map.of("type", "object", "properties", Map.of("order_id", Map.of("type", "string"))))
        .description(name)
        .build();
  }

  @Test
  void aBurstOfGatedAsyncCallsThatEachCallAnotherGatedAsyncToolEnds() throws Exception {
    AtomicInteger charged = new AtomicInteger();
    McpServerFeatures.AsyncToolSpecification charge =
        mcpGate.gate(
            new McpServerFeatures.AsyncToolSpecification(
                tool("charge"),
                (exchange, request) ->
                    Mono.delay(Duration.ofMillis(50))
                        .map(
                            x -> {
                              charged.incrementAndGet();
                              return CallToolResult.builder().addTextContent("charged").build();
                            })),
            ToolPolicy.defaults());
    McpServerFeatures.AsyncToolSpecification checkout =
        mcpGate.gate(
            new McpServerFeatures.AsyncToolSpecification(
                tool("checkout"),
                (exchange, request) ->
                    Mono.delay(Duration.ofMillis(300)) // the stock check, downstream
                        .then(
                            charge
                                .callHandler()
                                .apply(
                                    exchange,
                                    new CallToolRequest(
                                        "charge",
                                        Map.of(
                                            "order_id",
                                            request.arguments().get("order_id"),
                                            "idempotency_key",
                                            "charge-" + request.arguments().get("order_id")))))
                        // for this test's sake only: stuck calls end after 15 s, freeing threads
                        .timeout(Duration.ofSeconds(15))),
            ToolPolicy.defaults());

    List<String> keys = new ArrayList<>();
    List<CompletableFuture<CallToolResult>> calls = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      String key = UUID.randomUUID().toString();
      keys.add(key);
      calls.add(
          checkout
              .callHandler()
              .apply(
                  null,
                  new CallToolRequest(
                      "checkout", Map.of("order_id", "o-" + key, "idempotency_key", key)))
              .toFuture());
    }
    try {
      // ungated, the burst takes about 350 ms
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(8, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException stuck) {
      // asserted below
    }
    List<String> rows =
        keys.stream()
            .map(k -> gate.find(new ClaimId("constant:acme", "checkout", k)))
            .map(r -> r.map(ClaimRecord::state).map(String::valueOf).orElse("no row"))
            .toList();
    assertThat(calls)
        .as(
            "a burst of %d gated async calls, each calling a gated async tool of the same McpGate"
                + " (its pool has %d threads): charges run %d, outer rows %s",
            BURST, Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE, charged.get(), rows)
        .allSatisfy(c -> assertThat(c).isCompleted());
    assertThat(charged).hasValue(BURST);
  }
}
