package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A tenant resolver is a hook of the server's, like the authorizer. When the authorizer throws, the
 * model is told {@code idempotency_internal_error}, {@code retry_with_same_key: true}, "safe to
 * retry later". When the tenant resolver throws (its directory is down for a moment), the model is
 * told {@code tenant_unknown}, {@code retry_with_same_key: false}, and that the fix is the client's
 * (log in, send a token) or the server's configuration, "retrying will not help". The docs define
 * {@code false} as "such a retry would only be refused again until something changes"; here the
 * very same call, sent again unchanged, runs. Expected: a resolver that threw is told as a failure
 * a retry with the same key may get past ({@code retry_with_same_key: true}), not as a caller that
 * did not identify itself.
 */
class ThrowingTenantResolverToldNotToRetryTest {

  @Test
  @SuppressWarnings("unchecked")
  void aResolverThatThrowsOnceIsNotToldAsUnfixableByARetry() {
    AtomicBoolean directoryDown = new AtomicBoolean(true);
    AtomicInteger runs = new AtomicInteger();
    McpServerFeatures.SyncToolSpecification gated =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(
                context -> {
                  if (directoryDown.getAndSet(false)) {
                    throw new IllegalStateException("directory timed out (test)");
                  }
                  return "directory:acme";
                })
            .build()
            .gate(
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder("send_invoice", Map.of("type", "object"))
                            .description("Send an invoice.")
                            .build())
                    .callHandler(
                        (exchange, request) -> {
                          runs.incrementAndGet();
                          return CallToolResult.builder().addTextContent("sent").build();
                        })
                    .build(),
                ToolPolicy.defaults());
    CallToolRequest call =
        new CallToolRequest("send_invoice", Map.of("invoice", "I-7", "idempotency_key", "k-t"));

    CallToolResult refused = gated.callHandler().apply(null, call);
    CallToolResult retried = gated.callHandler().apply(null, call);

    assertThat(retried.isError()).isNotEqualTo(true); // the unchanged retry ran
    assertThat(runs).hasValue(1);
    Map<String, Object> error =
        (Map<String, Object>) ((Map<String, Object>) refused.structuredContent()).get("error");
    assertThat(error)
        .as("the answer to the call whose resolver threw")
        .containsEntry(McpGateErrors.RETRY_WITH_SAME_KEY, true);
  }
}
