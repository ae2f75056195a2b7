package dev.mcpgate.mcp;

import io.modelcontextprotocol.server.McpServerFeatures;
import java.util.List;

/**
 * The gated server over stdio (in-process pipes), with the fixed tenant of a single-user server.
 */
class StdioGatedServerTest extends GatedServerContract {

  @Override
  TenantResolver tenantResolver() {
    return TenantResolver.fixed("local");
  }

  @Override
  McpHarness start(List<McpServerFeatures.SyncToolSpecification> specs) {
    return McpHarness.stdio(specs);
  }
}
