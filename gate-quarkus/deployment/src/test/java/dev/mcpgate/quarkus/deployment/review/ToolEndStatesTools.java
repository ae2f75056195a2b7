package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.smallrye.common.annotation.RunOnVirtualThread;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeoutException;

/**
 * Gated tools that count a run, then end as "how": returns, plain, unknown, socket, timeout; on a
 * worker and on a virtual thread.
 */
public class ToolEndStatesTools {
  static int runs(String order) {
    return Runs.get(order);
  }

  static ToolResponse end(String order, String how) throws Exception {
    int run = Runs.inc(order);
    switch (how) {
      case "returns":
        return ToolResponse.success("charged " + order + " (run " + run + ")");
      case "plain":
        throw new IllegalArgumentException("card declined (nothing charged)");
      case "unknown":
        throw new OutcomeUnknownException("the provider did not answer");
      case "socket":
        throw new SocketTimeoutException("Read timed out");
      case "timeout":
        throw new TimeoutException("no answer in 5 s");
      default:
        throw new IllegalStateException(how);
    }
  }

  @Tool(description = "Charges (worker).", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse chargeWorker(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "how") String how,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    return end(orderId, how);
  }

  @Tool(
      description = "Charges (virtual thread).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @RunOnVirtualThread
  public ToolResponse chargeVirtual(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "how") String how,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    return end(orderId, how);
  }
}
