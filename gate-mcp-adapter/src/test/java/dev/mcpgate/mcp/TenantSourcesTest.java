package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Every tenant the adapter's resolvers give carries its source ({@code constant:}, {@code
 * context:}), so that two servers with different resolvers on one claims store never share a tenant
 * by the same text; a blank value is no tenant, even with its prefix (issue 34, item 4).
 */
class TenantSourcesTest {
  private final AtomicInteger runs = new AtomicInteger();
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();

  private McpStatelessServerFeatures.SyncToolSpecification refund(TenantResolver tenants) {
    return McpGate.builder(gate)
        .tenantResolver(tenants)
        .build()
        .gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) ->
                    CallToolResult.builder()
                        .addTextContent("run " + runs.incrementAndGet())
                        .build()),
            ToolPolicy.defaults());
  }

  private static CallToolResult call(
      McpStatelessServerFeatures.SyncToolSpecification tool, Map<String, Object> context) {
    return tool.callHandler()
        .apply(
            McpTransportContext.create(context),
            new CallToolRequest(
                "refund_order",
                Map.of("order_id", "ord_1", "amount_cents", 500, "idempotency_key", "k-1")));
  }

  private static boolean replayed(CallToolResult r) {
    return r.meta() != null && Boolean.TRUE.equals(r.meta().get(McpGateErrors.META_REPLAYED));
  }

  @Test
  void eachResolverTagsItsSource() {
    assertThat(TenantResolver.fixed("local").resolve(McpTransportContext.EMPTY))
        .isEqualTo("constant:local");
    assertThat(
            TenantResolver.fromTransportContext("tenant")
                .resolve(McpTransportContext.create(Map.of("tenant", "acme"))))
        .isEqualTo("context:acme");
    assertThat(TenantResolver.fromTransportContext("tenant").resolve(McpTransportContext.EMPTY))
        .isNull();
  }

  @Test
  void aContextValueThatSpellsAnotherServersTenantIsAnotherTenant() {
    String storedByTheStdioServer = TenantResolver.fixed("acme").resolve(McpTransportContext.EMPTY);
    var stdio = refund(TenantResolver.fixed("acme"));
    var http = refund(TenantResolver.fromTransportContext("tenant"));

    CallToolResult first = call(stdio, Map.of());
    CallToolResult spoofed = call(http, Map.of("tenant", storedByTheStdioServer));

    assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(spoofed.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(replayed(spoofed)).as("the context value reached the constant's result").isFalse();
    assertThat(runs).hasValue(2);
  }

  @Test
  void aBlankContextValueIsNoTenantEvenWithItsPrefix() {
    var http = refund(TenantResolver.fromTransportContext("tenant"));
    for (String blank : new String[] {"", " ", "\t"}) {
      CallToolResult result = call(http, Map.of("tenant", blank));
      assertThat(GatedServerContract.error(result))
          .as("[%s]", blank)
          .containsEntry("type", McpGateErrors.TENANT_UNKNOWN);
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void aFixedTenantIsCheckedWithItsPrefix() {
    assertThatThrownBy(() -> TenantResolver.fixed(" "))
        .isInstanceOf(InvalidIdempotencyKeyException.class);
    assertThatThrownBy(() -> TenantResolver.fixed("x".repeat(250)))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("constant:");
    assertThat(TenantResolver.fixed("x".repeat(246)).resolve(McpTransportContext.EMPTY))
        .hasSize(255);
  }
}
