package dev.mcpgate.testkit.trial;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;

/** Small helpers for the trial tests: a gate on an in-memory store and tool definitions. */
final class TrialServer {
  private TrialServer() {}

  static McpGate gate() {
    return gate(GatePolicy.defaults());
  }

  static McpGate gate(GatePolicy policy) {
    return McpGate.builder(
            IdempotencyGate.builder(InMemoryIdempotencyStore.create()).policy(policy).build())
        .tenantResolver(TenantResolver.fixed("local"))
        .build();
  }

  /** A write tool (no hints) with the given properties, all required. */
  static McpSchema.Tool writeTool(String name, Map<String, Object> properties) {
    return McpSchema.Tool.builder(
            name,
            Map.of(
                "type",
                "object",
                "properties",
                properties,
                "required",
                List.copyOf(properties.keySet())))
        .description(name)
        .build();
  }

  static McpSchema.Tool tool(String name, Map<String, Object> properties, Boolean idempotent) {
    return McpSchema.Tool.builder(
            name, Map.of("type", "object", "properties", properties, "required", List.of()))
        .description(name)
        .annotations(new McpSchema.ToolAnnotations(null, null, null, idempotent, null, null))
        .build();
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
