package dev.mcpgate.examples;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JSON schemas for the example's tools. */
final class Schemas {
  private Schemas() {}

  static Map<String, Object> string(String description) {
    return Map.of("type", "string", "description", description);
  }

  static Map<String, Object> integer(String description) {
    return Map.of("type", "integer", "description", description);
  }

  @SafeVarargs
  static Map<String, Object> object(
      List<String> required, Map.Entry<String, Object>... properties) {
    Map<String, Object> props = new LinkedHashMap<>();
    for (Map.Entry<String, Object> p : properties) {
      props.put(p.getKey(), p.getValue());
    }
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", props);
    schema.put("required", required);
    return schema;
  }
}
