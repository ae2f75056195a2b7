package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyGate;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Review: an async tool written as Reactor asks for blocking work (a downstream call, then the
 * blocking write on {@code Schedulers.boundedElastic()}). The gate waits for the handler's Mono on
 * a thread of its own; when that thread was a bounded-elastic one, a burst of gated calls held
 * every bounded-elastic thread (10 per core) while each handler's own bounded-elastic task queued
 * behind them: no call ended, and their leases, renewed by a live process, kept the keys claimed (a
 * retry elsewhere was told in progress for as long as the process lived).
 */
class AsyncHandlerOnBoundedElasticReviewTest {
  private static final int BURST = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE + 2;

  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fromTransportContext("tenant")).build();
  private final ExecutorService callers = Executors.newFixedThreadPool(BURST);

  @AfterEach
  void close() {
    callers.shutdownNow();
    gate.close();
  }

  private static McpServerFeatures.AsyncToolSpecification saveOrder(AtomicInteger saved) {
    return new McpServerFeatures.AsyncToolSpecification(
        McpSchema.Tool.builder(
                "save_order",
                Map.of(
                    "type", "object", "properties", Map.of("order_id", Map.of("type", "string"))))
            .description("Save an order.")
            .build(),
        (exchange, request) ->
            Mono.delay(Duration.ofMillis(300)) // the downstream call
                .then(
                    Mono.fromCallable( // the blocking write, where Reactor says blocking goes
                            () -> {
                              saved.incrementAndGet();
                              return CallToolResult.builder().addTextContent("saved").build();
                            })
                        .subscribeOn(Schedulers.boundedElastic()))
                // for this test's sake only: stuck calls end after 15 s, freeing the threads
                .timeout(Duration.ofSeconds(15)));
  }

  @Test
  void everyCallOfABurstOfGatedAsyncCallsEnds() throws Exception {
    AtomicInteger saved = new AtomicInteger();
    List<String> keys = new ArrayList<>();
    try (McpHarness harness =
        McpHarness.http(null, List.of(mcpGate.gate(saveOrder(saved), ToolPolicy.defaults())))) {
      List<CompletableFuture<CallToolResult>> calls = new ArrayList<>();
      for (int i = 0; i < BURST; i++) {
        McpSyncClient client = harness.client("acme");
        String key = UUID.randomUUID().toString();
        keys.add(key);
        calls.add(
            CompletableFuture.supplyAsync(
                () ->
                    client.callTool(
                        new CallToolRequest(
                            "save_order", Map.of("order_id", "o-1", "idempotency_key", key))),
                callers));
      }
      try {
        // ten seconds: two leases, longer than a burst takes ungated (about 0.3 s)
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException stuck) {
        // asserted below, with the rows the stuck calls hold
      }
      List<String> rows =
          keys.stream()
              .map(k -> gate.find(new ClaimId("context:acme", "save_order", k)))
              .map(r -> r.map(ClaimRecord::state).map(String::valueOf).orElse("no row"))
              .toList();
      assertThat(calls)
          .as(
              "a burst of %d gated async calls (bounded-elastic has %d threads): writes run %d,"
                  + " rows %s",
              BURST, Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE, saved.get(), rows)
          .allSatisfy(c -> assertThat(c).isCompleted());
      assertThat(calls).allSatisfy(c -> assertThat(c.get().isError()).isNotEqualTo(Boolean.TRUE));
      assertThat(saved).hasValue(BURST);
    }
  }
}
