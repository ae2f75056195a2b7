package dev.mcpgate.examples;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** The demo's calls, and what a caller got from one, in a word. */
final class DemoCalls {
  private DemoCalls() {}

  @SuppressWarnings("unchecked")
  static String outcome(CallToolResult result) {
    if (Boolean.TRUE.equals(result.isError())) {
      Object structured = result.structuredContent();
      if (structured instanceof Map<?, ?> m && m.get("error") instanceof Map<?, ?> error) {
        Object type = ((Map<String, Object>) error).get("type");
        return type == null ? "error" : type.toString();
      }
      return "error";
    }
    if (result.meta() != null
        && Boolean.TRUE.equals(result.meta().get(McpGateErrors.META_REPLAYED))) {
      return "replayed";
    }
    return "executed";
  }

  static CallToolRequest args(Map<String, Object> args, String tool) {
    return new CallToolRequest(tool, args);
  }

  static CallToolRequest refund(String key, int amount) {
    return args(
        Map.of("order_id", "ord_9f2", "amount_cents", amount, "idempotency_key", key),
        "refund_order");
  }

  static CallToolRequest mail(String key, String email) {
    return args(Map.of("email", email, "idempotency_key", key), "send_password_reset");
  }

  static CallToolRequest publish(String slug, String title) {
    return args(
        Map.of("slug", slug, "title", title, "body", "Steps to reproduce: ..."), "publish_story");
  }

  static CallToolRequest reproduction(String reporter) {
    return args(Map.of("story_slug", "flaky-login", "reporter", reporter), "report_reproduction");
  }

  static CallToolRequest stop(String id, String endAt, String summary, String opId) {
    Map<String, Object> a = new HashMap<>();
    a.put("session_id", id);
    a.put("end_at", endAt);
    a.put("summary", summary);
    if (opId != null) {
      a.put("op_id", opId);
    }
    return args(a, "stop_session");
  }

  /** A client of the server on port whose calls carry {@code X-Tenant: tenant}. */
  static McpSyncClient client(int port, String tenant) {
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (builder, method, uri, body, ctx) -> builder.header("X-Tenant", tenant))
                    .build())
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    client.initialize();
    return client;
  }
}
