package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review finding (268b98e, GatedClaim.Carrier / GatedTool line 152): the claim now travels with the
 * handler request's meta map, so any request built with that map finds it. A gated handler that
 * hands its {@code _meta} on (for the progress token, say) to another tool, which runs ungated
 * because the call carries no key where keys are optional, makes that other handler find the OUTER
 * call's claim through {@code GatedClaim.of}: the ungated path passes the request on as it is
 * (Invocation.ungated), and its meta is the outer Carrier. The inner handler then believes it is
 * gated, and uses the outer call's downstream key (mcpgate-...) for a different effect; a provider
 * that dedupes by that key drops one effect and answers it with the other's result. On 82ef12e the
 * claim was found by request identity only and the inner handler found none.
 */
class GatedClaimCopiedMetaReviewTest {
  private final TestTools tools = new TestTools();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("acme"))
          .build();

  @Test
  void anUngatedCallMadeWithAGatedHandlersMetaFindsNoClaim() {
    AtomicReference<Optional<ClaimContext>> inner = new AtomicReference<>();
    McpStatelessServerFeatures.SyncToolSpecification ungatedUnlessKeyed =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(),
                (ctx, req) -> {
                  inner.set(GatedClaim.of(req));
                  return CallToolResult.builder().addTextContent("inner").build();
                }),
            ToolPolicy.builder().required(false).build());
    McpStatelessServerFeatures.SyncToolSpecification outer =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(),
                (ctx, req) ->
                    ungatedUnlessKeyed
                        .callHandler()
                        .apply(
                            ctx,
                            new CallToolRequest(
                                "refund_order", Map.of("order_id", "ord_2"), req.meta()))),
            ToolPolicy.defaults());

    outer
        .callHandler()
        .apply(
            McpTransportContext.EMPTY,
            new CallToolRequest(
                "refund_order",
                Map.of("order_id", "ord_1", "idempotency_key", "k-outer"),
                Map.of("progressToken", "p-1")));

    assertThat(inner.get())
        .as("the ungated inner call runs under no claim, and is not given the outer one")
        .isEmpty();
  }
}
