package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;

/** Gated tools declared in ways an interceptor may not reach. */
public class FinalTools {
  @Tool(
      description = "Refunds (a final method).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public final ToolResponse refundFinal(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success("refunded " + orderId + " (run " + ReviewTools.ran(orderId) + ")");
  }
}
