package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A tool whose key comes from {@code _meta} only ({@code keySources(KeySource.META)}) has no key
 * argument: the adapter adds none to its schema. Yet an argument of the tool's own that happens to
 * be named {@code idempotency_key} (here, the key the tool forwards to its payment provider) is
 * still removed before the handler sees it, and left out of the argument hash. The user expected
 * the tool's own argument to reach the handler, and two calls under one {@code _meta} key that
 * differ in it to conflict; the handler got no such argument, and the second call replayed the
 * first one's result as if its arguments were the same.
 */
class MetaOnlyPolicyDropsToolsOwnKeyArgumentTest {
  private final List<Map<String, Object>> handled = new ArrayList<>();
  private final McpServerFeatures.SyncToolSpecification gated =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("tests"))
          .build()
          .gate(
              McpServerFeatures.SyncToolSpecification.builder()
                  .tool(
                      McpSchema.Tool.builder(
                              "charge",
                              Map.of(
                                  "type",
                                  "object",
                                  "properties",
                                  Map.of(
                                      "amount_cents", Map.of("type", "integer"),
                                      "idempotency_key", Map.of("type", "string"))))
                          .description("Charge a card; idempotency_key goes to the provider.")
                          .build())
                  .callHandler(
                      (exchange, request) -> {
                        handled.add(request.arguments());
                        return CallToolResult.builder().addTextContent("charged").build();
                      })
                  .build(),
              ToolPolicy.builder().keySources(KeySource.META).build());

  private static CallToolRequest charge(String providerKey) {
    return new CallToolRequest(
        "charge",
        Map.of("amount_cents", 500, "idempotency_key", providerKey),
        Map.of(McpGateErrors.META_KEY, "m-1"));
  }

  @Test
  void theHandlerGetsItsOwnArgument() {
    gated.callHandler().apply(null, charge("psp-1"));

    assertThat(handled).hasSize(1);
    assertThat(handled.get(0)).containsEntry("idempotency_key", "psp-1");
  }

  @Test
  void otherValuesOfItUnderOneKeyConflict() {
    gated.callHandler().apply(null, charge("psp-1"));
    CallToolResult other = gated.callHandler().apply(null, charge("psp-2"));

    assertThat(other.isError()).as("%s", other).isTrue();
    assertThat(other.structuredContent().toString()).contains(McpGateErrors.KEY_CONFLICT);
  }
}
