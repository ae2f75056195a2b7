package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With {@code digestAllKeys(true)} the key a client sends in {@code idempotency_key} is kept as its
 * digest. A conflict on it must still tell the model what is true of its key.
 *
 * <p>Expected: the refusal neither quotes the key (it may be personal data) nor says it was made
 * from the arguments: the model chose it, and the advice "use a new key for a new request" is only
 * followable if it knows that. What happens: ModelMessages.keyOf takes any key that looks like a
 * digest for a natural key and says "The same key (made from its arguments) was already used",
 * which is untrue here: the key was the argument idempotency_key the model sent.
 */
class DigestedClientKeyIsToldAsMadeFromArgumentsTest {
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();

  @AfterEach
  void close() {
    gate.close();
  }

  @Test
  void aConflictOnADigestedClientKeyDoesNotSayTheKeyWasMadeFromTheArguments() {
    McpSchema.Tool refund =
        McpSchema.Tool.builder()
            .name("refund")
            .description("Refund an order.")
            .inputSchema(McpJsonDefaults.getMapper(), "{\"type\":\"object\"}")
            .build();
    McpGate mcpGate =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("acme"))
            .digestAllKeys(true)
            .build();
    var gated =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                refund,
                (context, request) -> CallToolResult.builder().addTextContent("refunded").build()),
            ToolPolicy.defaults());

    gated
        .callHandler()
        .apply(
            McpTransportContext.EMPTY,
            new CallToolRequest("refund", Map.of("idempotency_key", "order-7", "cents", 500)));
    CallToolResult conflict =
        gated
            .callHandler()
            .apply(
                McpTransportContext.EMPTY,
                new CallToolRequest("refund", Map.of("idempotency_key", "order-7", "cents", 900)));

    String told = conflict.content() + " " + conflict.structuredContent();
    assertThat(told).contains("idempotency_key_conflict");
    assertThat(told).as("the key is kept as its digest: not quoted").doesNotContain("order-7");
    assertThat(told)
        .as("the model sent this key in idempotency_key; it was not made from the arguments")
        .doesNotContain("made from its arguments");
  }
}
