package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The gated server over Streamable HTTP (embedded Tomcat); tenants come from an X-Tenant header. */
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
  void noTenantIsRefusedAndRunsNothing() {
    McpSyncClient anonymous = harness.client(null);
    CallToolResult refused = anonymous.callTool(refund("k-anon", 500));

    assertThat(tools.refunds).hasValue(0);
    assertThat(error(refused)).containsEntry("type", McpGateErrors.TENANT_UNKNOWN);
  }
}
