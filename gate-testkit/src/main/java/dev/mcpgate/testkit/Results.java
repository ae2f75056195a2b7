package dev.mcpgate.testkit;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Comparing tool results as a retrying client sees them. */
final class Results {
  private Results() {}

  /**
   * @return true when two results are the same but for the replay marks in {@code _meta}
   */
  static boolean same(CallToolResult a, CallToolResult b) {
    return Objects.equals(a.content(), b.content())
        && Objects.equals(a.structuredContent(), b.structuredContent())
        && Objects.equals(Boolean.TRUE.equals(a.isError()), Boolean.TRUE.equals(b.isError()))
        && Objects.equals(withoutMarks(a.meta()), withoutMarks(b.meta()));
  }

  /**
   * @return true when the result carries the gate's replay mark
   */
  static boolean isReplay(CallToolResult result) {
    return result.meta() != null
        && Boolean.TRUE.equals(result.meta().get(McpGateErrors.META_REPLAYED));
  }

  static Map<String, Object> withoutMarks(Map<String, Object> meta) {
    if (meta == null) {
      return Map.of();
    }
    Map<String, Object> m = new LinkedHashMap<>(meta);
    m.remove(McpGateErrors.META_REPLAYED);
    m.remove(McpGateErrors.META_FIRST_EXECUTED_AT);
    return m;
  }

  @SuppressWarnings("unchecked")
  static String errorType(CallToolResult result) {
    if (!Boolean.TRUE.equals(result.isError())) {
      return null;
    }
    if (result.structuredContent() instanceof Map<?, ?> m
        && m.get("error") instanceof Map<?, ?> e) {
      Object type = ((Map<String, Object>) e).get("type");
      return type == null ? "error" : type.toString();
    }
    return "error";
  }

  static String describe(CallToolResult r) {
    return "{content="
        + r.content()
        + ", structuredContent="
        + r.structuredContent()
        + ", isError="
        + r.isError()
        + ", _meta="
        + r.meta()
        + "}";
  }
}
