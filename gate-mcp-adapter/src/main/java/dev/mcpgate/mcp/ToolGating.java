package dev.mcpgate.mcp;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;

/**
 * What every gated tool of one {@link McpGate} shares, wired once when it is built; a tool adds its
 * own definition and policy.
 *
 * @param acceptInexactNumbers true to hash numbers that arrive as {@code double} as they are
 */
record ToolGating(
    IdempotencyGate gate,
    TenantResolver tenants,
    CallAuthorizer authorizer,
    ResultMapper<CallToolResult> mapper,
    Auditor auditor,
    KeyProtection keys,
    boolean acceptInexactNumbers,
    Scheduler waits) {
  private static final Logger LOG = LoggerFactory.getLogger(McpGate.class);

  /**
   * @return the gated tool, or null for a tool annotated read-only (passed through ungated)
   */
  GatedTool gated(McpSchema.Tool tool, ToolPolicy policy) {
    Objects.requireNonNull(tool, "tool must not be null");
    Objects.requireNonNull(policy, "policy must not be null");
    if (tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().readOnlyHint())) {
      LOG.warn(
          "tool {} is annotated read-only (readOnlyHint=true): passed through ungated",
          tool.name());
      return null;
    }
    return new GatedTool(
        tool,
        policy,
        gate.withPolicy(policy.applyTo(gate.policy())),
        tenants,
        authorizer,
        mapper,
        auditor,
        keys,
        acceptInexactNumbers);
  }

  /**
   * @param kind the write mode, for the error
   * @return a sync tool whose handler writes through a unit of work
   * @throws IllegalArgumentException if the tool is annotated read-only
   */
  McpServerFeatures.SyncToolSpecification writeTool(
      McpSchema.Tool tool,
      ToolPolicy policy,
      String kind,
      Function<McpSyncServerExchange, Invocation> invocation) {
    GatedTool g = gated(tool, policy);
    if (g == null) {
      throw new IllegalArgumentException(
          "tool " + tool.name() + " is annotated read-only; a " + kind + " write tool must not be");
    }
    return GatedSpecifications.writing(g, invocation);
  }
}
