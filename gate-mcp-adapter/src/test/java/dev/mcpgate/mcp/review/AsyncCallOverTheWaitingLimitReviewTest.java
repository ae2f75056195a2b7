package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
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

/**
 * docs/mcp-adapter.md: at most 1,000 gated async calls wait at once, "a call over that is refused
 * before its claim: nothing ran, a retry is safe", and "Errors are CallToolResults with isError:
 * true ... structuredContent: {error: {type, message, executed, retry_with_same_key}}". The call
 * over the limit must be told so (executed "no", retry with the same key) and nothing may run or
 * stay claimed.
 */
class AsyncCallOverTheWaitingLimitReviewTest {
  private static final int LIMIT = 1_000;

  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fixed("acme")).build();

  @AfterEach
  void close() {
    gate.close();
  }

  @Test
  void theCallOverTheLimitIsToldNothingRanAndItsRetryRuns() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    CompletableFuture<Void> release = new CompletableFuture<>();
    McpServerFeatures.AsyncToolSpecification charge =
        mcpGate.gate(
            new McpServerFeatures.AsyncToolSpecification(
                McpSchema.Tool.builder(
                        "charge",
                        Map.of(
                            "type",
                            "object",
                            "properties",
                            Map.of("order_id", Map.of("type", "string"))))
                    .description("charge")
                    .build(),
                (exchange, request) ->
                    Mono.fromFuture(release)
                        .then(
                            Mono.fromCallable(
                                () -> {
                                  ran.incrementAndGet();
                                  return CallToolResult.builder().addTextContent("charged").build();
                                }))),
            ToolPolicy.defaults());

    List<CompletableFuture<CallToolResult>> held = new ArrayList<>();
    for (int i = 0; i < LIMIT; i++) {
      String key = UUID.randomUUID().toString();
      held.add(
          charge
              .callHandler()
              .apply(
                  null,
                  new CallToolRequest("charge", Map.of("order_id", key, "idempotency_key", key)))
              .toFuture());
    }
    // let the 1,000 take their threads
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < until
        && Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("mcpgate-async-tool"))
                .count()
            < LIMIT) {
      Thread.sleep(50);
    }
    String key = UUID.randomUUID().toString();
    CallToolRequest over =
        new CallToolRequest("charge", Map.of("order_id", key, "idempotency_key", key));
    Object told;
    try {
      told = charge.callHandler().apply(null, over).block(Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      told = e;
    }
    boolean claimed = gate.find(new ClaimId("constant:acme", "charge", key)).isPresent();
    release.complete(null);
    CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertThat(ran).as("the %d held calls ran", LIMIT).hasValue(LIMIT);
    assertThat(claimed).as("the refused call left its key claimed").isFalse();
    CallToolResult retry = charge.callHandler().apply(null, over).block(Duration.ofSeconds(10));
    assertThat(ran).as("the retry of the refused call ran once: %s", retry).hasValue(LIMIT + 1);
    assertThat(told)
        .as("what the call over the limit was told")
        .isInstanceOfSatisfying(
            CallToolResult.class,
            r -> {
              assertThat(r.isError()).isTrue();
              assertThat(String.valueOf(r.structuredContent()))
                  .contains("executed=no")
                  .contains("retry_with_same_key=true");
            });
  }
}
