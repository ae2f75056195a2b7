package dev.mcpgate.testkit;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Arguments made from a tool's input schema: a sample value for each required property. */
final class SampleArguments {
  private SampleArguments() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> properties(McpSchema.Tool tool) {
    if (tool == null
        || tool.inputSchema() == null
        || !(tool.inputSchema().get("properties") instanceof Map<?, ?> p)) {
      return Map.of();
    }
    return (Map<String, Object>) p;
  }

  /**
   * @param naturalKey the properties that make the key: they get the token, so that each call is a
   *     new one
   * @param token new for each call
   */
  static Map<String, Object> of(McpSchema.Tool tool, List<?> naturalKey, String token) {
    Map<String, Object> properties = properties(tool);
    List<?> required =
        tool != null
                && tool.inputSchema() != null
                && tool.inputSchema().get("required") instanceof List<?> r
            ? r
            : List.of();
    Map<String, Object> arguments = new LinkedHashMap<>();
    properties.forEach(
        (name, schema) -> {
          boolean key = naturalKey.contains(name);
          if (required.contains(name) || key) {
            Object value =
                sample(schema, key ? token : "mcpgate-check", key ? token.hashCode() : 1);
            if (value != null) {
              arguments.put(name, value);
            }
          }
        });
    return arguments;
  }

  private static Object sample(Object schema, String text, int number) {
    if (!(schema instanceof Map<?, ?> s)) {
      return text;
    }
    if (s.get("const") != null) {
      return s.get("const");
    }
    if (s.get("enum") instanceof List<?> e && !e.isEmpty()) {
      return e.get(0);
    }
    if (s.get("default") != null) {
      return s.get("default");
    }
    Object type = s.get("type");
    if (type instanceof List<?> types) {
      type =
          types.stream()
              .filter(t -> !"null".equals(t))
              .map(Object::toString)
              .findFirst()
              .orElse("string");
    }
    if (type == null) {
      return s.containsKey("properties") ? objectSample(s, text, number) : text;
    }
    return switch (type.toString()) {
      case "integer" -> Math.abs(number % 1000) + 1;
      case "number" -> Math.abs(number % 1000) + 1;
      case "boolean" -> Boolean.TRUE;
      case "array" -> List.of();
      case "object" -> objectSample(s, text, number);
      case "null" -> null;
      default -> text;
    };
  }

  private static Map<String, Object> objectSample(Map<?, ?> s, String text, int number) {
    Map<String, Object> out = new LinkedHashMap<>();
    List<?> required = s.get("required") instanceof List<?> r ? r : List.of();
    if (s.get("properties") instanceof Map<?, ?> p) {
      p.forEach(
          (name, schema) -> {
            if (required.contains(name)) {
              Object v = sample(schema, text, number);
              if (v != null) {
                out.put(name.toString(), v);
              }
            }
          });
    }
    return out;
  }
}
