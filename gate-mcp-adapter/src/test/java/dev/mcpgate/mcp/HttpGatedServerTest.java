package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The gated server over Streamable HTTP (embedded Tomcat); tenants come from an X-Tenant header.
 */
class HttpGatedServerTest extends GatedServerContract {

  @Override
  TenantResolver tenantResolver() {
    return TenantResolver.fromTransportContext("tenant");
  }

  @Override
  McpHarness start(List<McpServerFeatures.SyncToolSpecification> specs) {
    return McpHarness.http(specs, null);
  }

  @Test
  void twoTenantsWithTheSameKeyRunTwice() {
    CallToolResult acme = harness.client("acme").callTool(refund("shared-key", 500));
    CallToolResult globex = harness.client("globex").callTool(refund("shared-key", 500));

    assertThat(tools.refunds).hasValue(2);
    assertThat(globex.meta()).doesNotContainKey(McpGateErrors.META_REPLAYED);
    assertThat(acme.structuredContent()).isNotEqualTo(globex.structuredContent());
  }

  @Test
  void theIdempotencyKeyHeaderIsAKeySourceWhenAPolicyListsIt() {
    AtomicReference<String> header = new AtomicReference<>();
    try (McpHarness headed =
        McpHarness.http(
            List.of(
                mcpGate.gate(
                    tools.refundSpec(),
                    ToolPolicy.builder().keySources(KeySource.HEADER, KeySource.ARGUMENT).build())),
            null)) {
      McpSyncClient client = headed.client("acme", header::get);

      header.set("h-1");
      CallToolResult first = client.callTool(refund(null, 500));
      CallToolResult retry = client.callTool(refund(null, 500));
      header.set("h-2");
      client.callTool(refund(null, 500));
      header.set("h-3");
      CallToolResult ambiguous = client.callTool(refund("other-key", 500));
      header.set(null);
      CallToolResult none = client.callTool(refund(null, 500));

      assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
      assertThat(tools.refunds).as("h-1 once, h-2 once").hasValue(2);
      assertThat(error(ambiguous)).containsEntry("type", McpGateErrors.KEY_INVALID);
      assertThat(error(ambiguous).get("message").toString()).contains("Idempotency-Key header");
      assertThat(error(none)).containsEntry("type", McpGateErrors.KEY_REQUIRED);
    }
  }

  @Test
  void theHeaderIsIgnoredWhereThePolicyDoesNotListIt() {
    McpSyncClient client = harness.client("acme", () -> "header-key");
    CallToolResult refused = client.callTool(refund(null, 500));

    assertThat(error(refused)).containsEntry("type", McpGateErrors.KEY_REQUIRED);
    assertThat(tools.refunds).hasValue(0);
  }

  @Test
  void noTenantIsRefusedAndRunsNothing() {
    McpSyncClient anonymous = harness.client(null);
    CallToolResult refused = anonymous.callTool(refund("k-anon", 500));

    assertThat(tools.refunds).hasValue(0);
    assertThat(error(refused)).containsEntry("type", McpGateErrors.TENANT_UNKNOWN);
  }
}
