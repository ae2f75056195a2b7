package dev.mcpgate.examples;

import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.HashMap;
import java.util.Map;

/** Builds tool calls for the example's tests. */
final class Calls {
  private Calls() {}

  /**
   * @return a call of {@code tool} with the arguments given as name, value, name, value...
   */
  static CallToolRequest call(String tool, Object... keyValues) {
    Map<String, Object> args = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      args.put((String) keyValues[i], keyValues[i + 1]);
    }
    return new CallToolRequest(tool, args);
  }
}
