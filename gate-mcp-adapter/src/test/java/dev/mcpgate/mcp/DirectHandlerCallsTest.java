package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A unit test may call a gated handler directly with a null exchange (or context), as it may call
 * the handler ungated: the gate reads an empty transport context, and the handler gets its null.
 */
class DirectHandlerCallsTest {
  private final TestTools tools = new TestTools();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("tests"))
          .build();

  @Test
  void aSyncHandlerCalledWithNoExchangeRunsOnceAndReplays() {
    McpServerFeatures.SyncToolSpecification gated =
        mcpGate.gate(tools.refundSpec(), ToolPolicy.defaults());

    CallToolResult first = gated.callHandler().apply(null, GatedServerContract.refund("d-1", 500));
    CallToolResult retry = gated.callHandler().apply(null, GatedServerContract.refund("d-1", 500));

    assertThat(tools.refunds).hasValue(1);
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
  }

  @Test
  void anAsyncHandlerCalledWithNoExchangeRunsOnceAndReplays() {
    McpServerFeatures.AsyncToolSpecification gated =
        mcpGate.gate(tools.refundAsyncSpec(), ToolPolicy.defaults());

    gated
        .callHandler()
        .apply(null, GatedServerContract.refund("d-2", 500))
        .block(Duration.ofSeconds(30));
    CallToolResult retry =
        gated
            .callHandler()
            .apply(null, GatedServerContract.refund("d-2", 500))
            .block(Duration.ofSeconds(30));

    assertThat(tools.refunds).hasValue(1);
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void aStatelessHandlerCalledWithNoContextRunsOnceAndReplays() {
    McpStatelessServerFeatures.SyncToolSpecification gated =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(), (ctx, req) -> tools.refund(req)),
            ToolPolicy.defaults());

    gated.callHandler().apply(null, GatedServerContract.refund("d-3", 500));
    CallToolResult retry = gated.callHandler().apply(null, GatedServerContract.refund("d-3", 500));

    assertThat(tools.refunds).hasValue(1);
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void aHandlerCalledWithNoContextHasNoTenantFromIt() {
    McpGate byContext =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .build();
    McpStatelessServerFeatures.SyncToolSpecification stateless =
        byContext.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(), (ctx, req) -> tools.refund(req)),
            ToolPolicy.defaults());
    McpServerFeatures.SyncToolSpecification sync =
        byContext.gate(tools.refundSpec(), ToolPolicy.defaults());

    CallToolResult none = stateless.callHandler().apply(null, GatedServerContract.refund("d-4", 5));
    CallToolResult noExchange =
        sync.callHandler().apply(null, GatedServerContract.refund("d-4", 5));

    assertThat(GatedServerContract.error(none)).containsEntry("type", McpGateErrors.TENANT_UNKNOWN);
    assertThat(GatedServerContract.error(noExchange))
        .containsEntry("type", McpGateErrors.TENANT_UNKNOWN);
    assertThat(tools.refunds).hasValue(0);
  }
}
