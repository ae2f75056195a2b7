package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A handler that answers nothing (a sync handler that returns null, an async one whose {@code Mono}
 * completes empty) has its "result" stored as it is. Every retry under the key then gets {@code
 * idempotency_internal_error}, {@code executed: "yes"}, {@code retry_with_same_key: true} and
 * "Retrying the same call with the same key is safe": the model retries, and gets the same error
 * again, for the whole retention. The docs say {@code retry_with_same_key} is true only when the
 * same call with the same key "runs the call at most once or returns its first result"; here it
 * does neither.
 *
 * <p>Expected: a retry the answer calls safe gets something else than the same failure (the empty
 * answer is not stored, or is replayed as it was), or the answer does not call the retry safe.
 */
class NullResultRetryToldSafeForeverTest {
  private final AtomicInteger runs = new AtomicInteger();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("tests"))
          .build();

  private static McpSchema.Tool tool() {
    return McpSchema.Tool.builder("close_ticket", Map.of("type", "object"))
        .description("Close a ticket.")
        .build();
  }

  private static CallToolRequest call() {
    return new CallToolRequest(
        "close_ticket", Map.of("ticket", "T-1", "idempotency_key", "k-null"));
  }

  @Test
  void aSyncHandlerThatReturnsNull() {
    McpServerFeatures.SyncToolSpecification gated =
        mcpGate.gate(
            McpServerFeatures.SyncToolSpecification.builder()
                .tool(tool())
                .callHandler(
                    (exchange, request) -> {
                      runs.incrementAndGet();
                      return null;
                    })
                .build(),
            ToolPolicy.defaults());

    gated.callHandler().apply(null, call());
    CallToolResult retry = gated.callHandler().apply(null, call());
    CallToolResult nextRetry = gated.callHandler().apply(null, call());

    assertThat(runs).hasValue(1);
    assertRetryToldSafeGetsAnAnswer(retry, nextRetry);
  }

  @Test
  void anAsyncHandlerThatCompletesEmpty() {
    McpServerFeatures.AsyncToolSpecification gated =
        mcpGate.gate(
            McpServerFeatures.AsyncToolSpecification.builder()
                .tool(tool())
                .callHandler(
                    (exchange, request) -> {
                      runs.incrementAndGet();
                      return Mono.empty();
                    })
                .build(),
            ToolPolicy.defaults());

    gated.callHandler().apply(null, call()).block(Duration.ofSeconds(30));
    CallToolResult retry = gated.callHandler().apply(null, call()).block(Duration.ofSeconds(30));
    CallToolResult nextRetry =
        gated.callHandler().apply(null, call()).block(Duration.ofSeconds(30));

    assertThat(runs).hasValue(1);
    assertRetryToldSafeGetsAnAnswer(retry, nextRetry);
  }

  @SuppressWarnings("unchecked")
  private static void assertRetryToldSafeGetsAnAnswer(
      CallToolResult retry, CallToolResult nextRetry) {
    if (retry == null || !Boolean.TRUE.equals(retry.isError())) {
      return; // replayed as it was: fine
    }
    Map<String, Object> error =
        (Map<String, Object>) ((Map<String, Object>) retry.structuredContent()).get("error");
    if (Boolean.TRUE.equals(error.get(McpGateErrors.RETRY_WITH_SAME_KEY))) {
      assertThat(nextRetry)
          .as(
              "the retry was told %s, safe to retry with the same key; the next retry got",
              error.get("type"))
          .isNotEqualTo(retry);
    }
  }
}
