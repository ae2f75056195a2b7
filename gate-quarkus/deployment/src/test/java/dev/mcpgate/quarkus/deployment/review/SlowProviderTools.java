package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A gated tool with a (stand-in) Fault Tolerance timeout on a slow downstream. */
public class SlowProviderTools {
  static final Map<String, AtomicInteger> CHARGES = new ConcurrentHashMap<>();

  static int charges(String order) {
    AtomicInteger n = CHARGES.get(order);
    return n == null ? 0 : n.get();
  }

  @Tool(
      description = "Charges an order at the payment provider.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @FaultToleranceLikeTimeout
  public ToolResponse charge(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    // the provider takes the charge at once ...
    CHARGES.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
    // ... and its answer arrives after the timeout, on a socket read that an interrupt does not
    // stop
    long until =
        System.nanoTime() + 3 * FaultToleranceLikeTimeoutInterceptor.TIMEOUT_MS * 1_000_000L;
    while (System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    return ToolResponse.success("charged " + orderId);
  }
}
