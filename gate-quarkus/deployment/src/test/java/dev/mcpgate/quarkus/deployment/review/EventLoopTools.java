package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.smallrye.mutiny.Uni;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gated tool, and an ungated reactive one (it runs on the event loop) that calls it from Java.
 */
public class EventLoopTools {
  static final AtomicInteger PROBES = new AtomicInteger();

  @Tool(
      description = "Refunds an order, reactively.",
      annotations = @Tool.Annotations(idempotentHint = true))
  Uni<String> quickRefund(@ToolArg(name = "order_id") String orderId) {
    return Uni.createFrom().item(() -> probe(orderId, "k-" + orderId).content().toString());
  }

  @Tool(description = "Probes an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse probe(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    PROBES.incrementAndGet();
    return ToolResponse.success("probed " + orderId);
  }
}
