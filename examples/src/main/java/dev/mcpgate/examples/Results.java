package dev.mcpgate.examples;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;

/** Small helpers for tool results. */
final class Results {
  private Results() {}

  static CallToolResult ok(String text, Map<String, Object> structured) {
    return CallToolResult.builder().addTextContent(text).structuredContent(structured).build();
  }

  static CallToolResult error(String text) {
    return error("invalid_request", text);
  }

  static CallToolResult error(String type, String text) {
    return CallToolResult.builder()
        .isError(true)
        .addTextContent(text)
        .structuredContent(Map.of("error", Map.of("type", type, "message", text)))
        .build();
  }

  /**
   * A refusal before anything ran, that the same call would meet again: as the library's own
   * refusals say it, with {@code executed: "no"} and {@code retry_with_same_key: false}.
   */
  static CallToolResult notRun(String type, String text) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("type", type);
    error.put("message", text);
    error.put(McpGateErrors.EXECUTED, McpGateErrors.EXECUTED_NO);
    error.put(McpGateErrors.RETRY_WITH_SAME_KEY, false);
    return CallToolResult.builder()
        .isError(true)
        .addTextContent(text)
        .structuredContent(Map.of("error", error))
        .build();
  }
}
