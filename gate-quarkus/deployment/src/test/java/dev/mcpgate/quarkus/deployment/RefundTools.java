package dev.mcpgate.quarkus.deployment;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolCallException;
import io.quarkiverse.mcp.server.ToolResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The tools of the test application; each counts how often it ran, per order or session. */
public class RefundTools {
  static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

  static int runs(String id) {
    AtomicInteger n = RUNS.get(id);
    return n == null ? 0 : n.get();
  }

  private static int ran(String id) {
    return RUNS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
  }

  @Tool(
      description = "Refunds part of an order.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse refund(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "amount_cents") long amountCents,
      @ToolArg(name = "idempotency_key", required = false, description = "Reuse it on a retry.")
          String idempotencyKey)
      throws InterruptedException {
    int n = ran(orderId);
    Thread.sleep(300); // long enough for eight racers to meet
    return ToolResponse.success(
        "refunded " + amountCents + " cents of " + orderId + " (run " + n + ")");
  }

  @Tool(
      description = "Charges a decimal amount.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse charge(
      @ToolArg(name = "account") String account,
      @ToolArg(name = "amount") Double amount, // boxed: a primitive double stops the startup
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    ran(account);
    return ToolResponse.success("charged " + amount);
  }

  @Tool(
      description = "Stops a session; stopping it again is the same intent.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent(keySources = KeySource.NATURAL, naturalKey = "session_id")
  ToolResponse stopSession(@ToolArg(name = "session_id") String sessionId) {
    return ToolResponse.success("stopped " + sessionId + " (run " + ran(sessionId) + ")");
  }

  @Tool(
      description = "Sends a mail; the first try fails.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse sendMail(
      @ToolArg(name = "to") String to,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    int n = ran(to);
    if (n == 1) {
      throw new ToolCallException("the mail server is down");
    }
    return ToolResponse.success("sent to " + to + " (run " + n + ")");
  }

  @Tool(
      description = "Exports a report; takes three leases' time.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent(lease = "PT2S", inFlightWait = "PT20S")
  ToolResponse export(
      @ToolArg(name = "report") String report,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws InterruptedException {
    int n = ran(report);
    Thread.sleep(6000);
    return ToolResponse.success("exported " + report + " (run " + n + ")");
  }

  @Tool(description = "Appends a note (not gated).")
  String appendNote(String note) {
    return "noted";
  }

  @Tool(description = "Reads an order.", annotations = @Tool.Annotations(readOnlyHint = true))
  String readOrder(String orderId) {
    return "order " + orderId;
  }
}
