package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/comparison.md, the peers table, row "replay of the result": MCP Gate "yes, byte for byte".
 *
 * <p>What happens (and docs/mcp-adapter.md says so in its failure table): a decimal of the stored
 * result comes back with its value but not its spelling, and a {@code -0.0} comes back as {@code
 * 0.0}. Input: a handler whose structuredContent holds {@code 1.0E-5} and {@code -0.0}; the same
 * call again with the same key. Expected, by comparison.md: the replay's structuredContent is
 * written as the same bytes as the first answer's.
 */
class ReplayIsNotByteForByteTest {

  @Test
  void theReplaysStructuredContentIsWrittenAsTheFirstAnswersBytes() throws Exception {
    SyncToolSpecification gated =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("trial"))
            .build()
            .gate(
                SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder("set_rate", Map.of("type", "object"))
                            .description("Set a rate.")
                            .build())
                    .callHandler(
                        (exchange, request) ->
                            CallToolResult.builder()
                                .addTextContent("set")
                                .structuredContent(
                                    new java.util.TreeMap<>(Map.of("rate", 1.0E-5, "delta", -0.0)))
                                .build())
                    .build(),
                ToolPolicy.defaults());
    CallToolRequest call =
        new CallToolRequest("set_rate", Map.of("rate", 1, "idempotency_key", "k-rate"));

    CallToolResult first = gated.callHandler().apply(null, call);
    CallToolResult retry = gated.callHandler().apply(null, call);

    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    String firstBytes = McpJsonDefaults.getMapper().writeValueAsString(first.structuredContent());
    String replayBytes = McpJsonDefaults.getMapper().writeValueAsString(retry.structuredContent());
    assertThat(replayBytes)
        .as("comparison.md: a replay is the result byte for byte")
        .isEqualTo(firstBytes);
  }
}
