package dev.mcpgate.mcp;

import dev.mcpgate.core.GateResult;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** The MCP shapes of the gate's answers: refusals as isError results, replays with their marks. */
final class Refusals {
  private Refusals() {}

  static CallToolResult error(String type, String message, Duration retryAfter) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("type", type);
    error.put("message", message);
    if (retryAfter != null) {
      error.put("retry_after_ms", retryAfter.toMillis());
    }
    return CallToolResult.builder()
        .isError(true)
        .addTextContent(message)
        .structuredContent(Map.of("error", error))
        .build();
  }

  static CallToolResult of(GateResult.Refused<?> refused) {
    return switch (refused.reason()) {
      case CONFLICT -> error(McpGateErrors.KEY_CONFLICT, refused.message(), null);
      case IN_PROGRESS -> error(McpGateErrors.KEY_IN_PROGRESS, refused.message(), refused.retryAfter());
      case OUTCOME_UNKNOWN -> error(McpGateErrors.OUTCOME_UNKNOWN, refused.message(), refused.retryAfter());
      case RESULT_NOT_STORED -> error(McpGateErrors.OUTCOME_UNKNOWN, refused.message(), null);
    };
  }

  /** The stored result, unchanged but for two {@code _meta} entries that mark it as a replay. */
  static CallToolResult markReplay(CallToolResult stored, Instant firstExecutedAt) {
    Map<String, Object> meta = stored.meta() == null
        ? new LinkedHashMap<>() : new LinkedHashMap<>(stored.meta());
    meta.put(McpGateErrors.META_REPLAYED, true);
    meta.put(McpGateErrors.META_FIRST_EXECUTED_AT, firstExecutedAt.toString());
    return new CallToolResult(stored.content(), stored.isError(), stored.structuredContent(), meta);
  }
}
