package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.annotation.security.RolesAllowed;

/** A gated tool only admins may call. */
public class AdminTools {
  @Tool(description = "Reveals a payout.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @RolesAllowed("admin")
  ToolResponse payout(
      @ToolArg(name = "account") String account,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success(
        "paid out to " + account + ", secret ref 42 (run " + ReviewTools.ran(account) + ")");
  }
}
