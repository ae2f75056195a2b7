package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The claim reaches the handler through {@link GatedClaim}, not through the request's wire data.
 */
class GatedClaimTest {
  private final TestTools tools = new TestTools();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("acme"))
          .build();

  @Test
  void handlerFindsItsClaimWhileItRunsAndNothingOfItTravelsInMeta() {
    AtomicReference<CallToolRequest> seen = new AtomicReference<>();
    AtomicReference<Optional<ClaimContext>> during = new AtomicReference<>();
    McpStatelessServerFeatures.SyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(),
                (ctx, req) -> {
                  seen.set(req);
                  during.set(GatedClaim.of(req));
                  return CallToolResult.builder().addTextContent("ok").build();
                }),
            ToolPolicy.defaults());
    CallToolRequest request =
        new CallToolRequest(
            "refund_order",
            Map.of("order_id", "ord_1", "amount_cents", 5, "idempotency_key", "k-1"),
            Map.of("client", "test"));

    spec.callHandler().apply(McpTransportContext.EMPTY, request);

    assertThat(during.get())
        .hasValueSatisfying(
            claim -> {
              assertThat(claim.id().key()).isEqualTo("k-1");
              assertThat(claim.downstreamKey()).startsWith("mcpgate-");
            });
    assertThat(seen.get().meta()).isEqualTo(Map.of("client", "test"));
    assertThat(seen.get()).isNotSameAs(request);
    assertThat(GatedClaim.of(seen.get())).as("gone once the handler returned").isEmpty();
    assertThat(GatedClaim.of(request)).as("the caller's own request carries no claim").isEmpty();
  }

  @Test
  void anEqualRequestThatIsNotTheHandlersOwnFindsNoClaim() {
    AtomicReference<Optional<ClaimContext>> equalCopy = new AtomicReference<>();
    McpStatelessServerFeatures.SyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(),
                (ctx, req) -> {
                  equalCopy.set(
                      GatedClaim.of(new CallToolRequest(req.name(), req.arguments(), req.meta())));
                  return CallToolResult.builder().addTextContent("ok").build();
                }),
            ToolPolicy.defaults());

    spec.callHandler()
        .apply(
            McpTransportContext.EMPTY,
            new McpSchema.CallToolRequest(
                "refund_order", Map.of("order_id", "ord_1", "idempotency_key", "k-2"), null));

    assertThat(equalCopy.get()).isEmpty();
  }
}
