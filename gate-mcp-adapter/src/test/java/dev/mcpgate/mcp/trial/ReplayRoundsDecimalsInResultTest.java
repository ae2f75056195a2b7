package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/mcp-adapter.md, "What the caller gets": a retry gets "the stored result, identical in {@code
 * content}, {@code structuredContent}, {@code isError} and {@code _meta}". An {@link McpGate} built
 * without {@code jsonMapper(...)} (as the adapter's own Javadoc example and the doc's unit test
 * recipe do; the build only warns) stores results through the SDK's default mapper, which reads
 * decimals back as {@code double}: a refund whose {@code structuredContent} said {@code
 * 12345678901234567.89} is replayed as {@code 1.2345678901234568E16}. The user expected the first
 * result back; the retry got another amount. The gate's own stored results never need the
 * transport's mapper: it could store them exactly whatever the transport reads.
 */
class ReplayRoundsDecimalsInResultTest {

  private static McpServerFeatures.SyncToolSpecification refund() {
    return McpServerFeatures.SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder("refund_order", Map.of("type", "object"))
                .description("Refund an order.")
                .build())
        .callHandler(
            (exchange, request) ->
                CallToolResult.builder()
                    .addTextContent("refunded")
                    .structuredContent(
                        Map.of("refunded_total", new BigDecimal("12345678901234567.89")))
                    .build())
        .build();
  }

  private static CallToolRequest call() {
    return new CallToolRequest("refund_order", Map.of("order", "o-1", "idempotency_key", "k-dec"));
  }

  @Test
  void aGateBuiltWithoutAMapperReplaysTheDecimalItReturned() {
    McpServerFeatures.SyncToolSpecification gated =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("tests"))
            .build()
            .gate(refund(), ToolPolicy.defaults());

    CallToolResult first = gated.callHandler().apply(null, call());
    CallToolResult retry = gated.callHandler().apply(null, call());

    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(new BigDecimal(total(retry).toString()))
        .isEqualByComparingTo(new BigDecimal(total(first).toString()));
  }

  @Test
  void withTheExactMapperItDoes() {
    McpServerFeatures.SyncToolSpecification gated =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("tests"))
            .jsonMapper(ExactNumbers.jsonMapper())
            .build()
            .gate(refund(), ToolPolicy.defaults());

    CallToolResult first = gated.callHandler().apply(null, call());
    CallToolResult retry = gated.callHandler().apply(null, call());

    assertThat(new BigDecimal(total(retry).toString()))
        .isEqualByComparingTo(new BigDecimal(total(first).toString()));
  }

  @SuppressWarnings("unchecked")
  private static Object total(CallToolResult result) {
    return ((Map<String, Object>) result.structuredContent()).get("refunded_total");
  }
}
