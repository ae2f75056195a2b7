package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;

/** A gated tool keyed by the request's _meta only; counts its runs per order. */
public class BatchTools {
  static int runs(String order) {
    return Runs.get(order);
  }

  @Tool(
      description = "Sends one payment of an amount for an order.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent(keySources = KeySource.META)
  public ToolResponse pay(@ToolArg(name = "order_id") String orderId) throws InterruptedException {
    int run = Runs.inc(orderId);
    Thread.sleep(300);
    return ToolResponse.success("paid " + orderId + " (run " + run + ")");
  }
}
