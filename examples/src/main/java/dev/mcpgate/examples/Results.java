package dev.mcpgate.examples;

import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
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
}
