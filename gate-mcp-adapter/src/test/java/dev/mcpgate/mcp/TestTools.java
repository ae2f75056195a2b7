package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/** Tool handlers that count their executions: what the tests assert on. */
final class TestTools {
  final AtomicInteger refunds = new AtomicInteger();
  final AtomicInteger stops = new AtomicInteger();
  final AtomicInteger reads = new AtomicInteger();
  final AtomicBoolean failNextRefund = new AtomicBoolean();
  final AtomicLong refundDelayMs = new AtomicLong();
  volatile String lastHandlerThread;
  volatile Map<String, Object> lastRefundArguments;

  static Map<String, Object> schema(Map<String, Object> properties, List<String> required) {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", properties);
    schema.put("required", required);
    return schema;
  }

  McpSchema.Tool refundTool() {
    return McpSchema.Tool.builder(
            "refund_order",
            schema(
                Map.of(
                    "order_id", Map.of("type", "string"),
                    "amount_cents", Map.of("type", "number")),
                List.of("order_id", "amount_cents")))
        .description("Refund part of an order.")
        .annotations(new McpSchema.ToolAnnotations("Refund", false, true, null, true, null))
        .build();
  }

  CallToolResult refund(McpSchema.CallToolRequest request) {
    lastHandlerThread = Thread.currentThread().getName();
    lastRefundArguments = request.arguments();
    int n = refunds.incrementAndGet();
    long delay = refundDelayMs.get();
    if (delay > 0) {
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (failNextRefund.getAndSet(false)) {
      throw new IllegalStateException("payment provider unavailable");
    }
    ClaimContext claim = GatedClaim.of(request).orElse(null);
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("refund_id", "re_" + UUID.randomUUID());
    structured.put("execution", n);
    structured.put("gated", claim != null);
    if (claim != null) {
      structured.put("downstream_key", claim.downstreamKey());
      structured.put("takeover", claim.isTakeover());
    }
    return CallToolResult.builder()
        .addTextContent(
            "Refunded "
                + request.arguments().get("amount_cents")
                + " cents of order "
                + request.arguments().get("order_id"))
        .structuredContent(structured)
        .meta(Map.of("provider", "test-psp"))
        .build();
  }

  McpServerFeatures.SyncToolSpecification refundSpec() {
    return new McpServerFeatures.SyncToolSpecification(refundTool(), (ex, req) -> refund(req));
  }

  McpServerFeatures.AsyncToolSpecification refundAsyncSpec() {
    return new McpServerFeatures.AsyncToolSpecification(
        refundTool(), (ex, req) -> Mono.fromCallable(() -> refund(req)));
  }

  McpServerFeatures.SyncToolSpecification stopSessionSpec() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "stop_session",
                schema(
                    Map.of(
                        "session_id", Map.of("type", "string"),
                        "end_at", Map.of("type", "string")),
                    List.of("session_id", "end_at")))
            .description("Stop a running session.")
            .build();
    return new McpServerFeatures.SyncToolSpecification(
        tool,
        (ex, req) -> {
          int n = stops.incrementAndGet();
          return CallToolResult.builder()
              .addTextContent(
                  "stopped " + req.arguments().get("session_id") + " (execution " + n + ")")
              .build();
        });
  }

  McpServerFeatures.SyncToolSpecification getStorySpec() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "get_story", schema(Map.of("slug", Map.of("type", "string")), List.of("slug")))
            .description("Read a story.")
            .annotations(new McpSchema.ToolAnnotations("Story", true, false, true, false, null))
            .build();
    return new McpServerFeatures.SyncToolSpecification(
        tool,
        (ex, req) -> {
          reads.incrementAndGet();
          return CallToolResult.builder()
              .addTextContent("story " + req.arguments().get("slug"))
              .build();
        });
  }
}
