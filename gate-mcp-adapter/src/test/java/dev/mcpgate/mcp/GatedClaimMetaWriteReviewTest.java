package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review finding (268b98e, GatedClaim.Carrier): the handler's {@code meta()} is now the adapter's
 * read-only AbstractMap, where it was the caller's own map (a mutable LinkedHashMap as the
 * transport's JSON mapper reads {@code _meta}). A gated handler that writes to it (a trace id, a
 * progress note) now throws UnsupportedOperationException from {@code put}: its call, which ran
 * fine on 82ef12e, fails as the handler's failure, and the same handler run ungated (no key where
 * keys are optional) still succeeds. The CHANGELOG says "nothing to change for users".
 */
class GatedClaimMetaWriteReviewTest {
  private final TestTools tools = new TestTools();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("acme"))
          .build();

  @Test
  void aHandlerThatWritesToItsMetaStillRuns() {
    AtomicInteger ran = new AtomicInteger();
    McpStatelessServerFeatures.SyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(),
                (ctx, req) -> {
                  req.meta().put("handled-by", "refunds");
                  ran.incrementAndGet();
                  return CallToolResult.builder().addTextContent("ok").build();
                }),
            ToolPolicy.defaults());
    Map<String, Object> meta = new LinkedHashMap<>(Map.of("client", "test"));

    CallToolResult result =
        spec.callHandler()
            .apply(
                McpTransportContext.EMPTY,
                new CallToolRequest(
                    "refund_order", Map.of("order_id", "ord_1", "idempotency_key", "k-1"), meta));

    assertThat(ran).hasValue(1);
    assertThat(result.isError()).as("%s", result).isNotEqualTo(Boolean.TRUE);
  }
}
