package dev.mcpgate.testkit;

import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The call a check sends to a tool: the check's arguments (or sample ones from the tool's schema)
 * with the key where the gate reads it, from the gating the tool's listing describes.
 */
final class SampleCall {
  private SampleCall() {}

  /**
   * @param definition the tool as the server lists it, or null when it is not listed
   * @param name the tool's name
   * @param arguments the check's arguments for a token, or null for sample ones from the schema
   * @param token new for each call
   */
  static CallToolRequest of(
      McpSchema.Tool definition,
      String name,
      Function<String, Map<String, Object>> arguments,
      String token) {
    Map<String, Object> gating =
        definition != null
                && definition.meta() != null
                && definition.meta().get(McpGateErrors.META_TOOL) instanceof Map<?, ?> g
            ? castMap(g)
            : null;
    List<?> naturalKey =
        gating != null && gating.get("natural_key") instanceof List<?> n ? n : List.of();
    Map<String, Object> callArguments =
        new LinkedHashMap<>(
            arguments != null
                ? arguments.apply(token)
                : SampleArguments.of(definition, naturalKey, token));
    Map<String, Object> meta = null;
    if (gating != null) {
      Object keyArgument = gating.get("key_argument");
      List<?> sources = gating.get("key_sources") instanceof List<?> s ? s : List.of();
      if (keyArgument != null) {
        putKey(callArguments, keyArgument.toString(), token, arguments == null);
      } else if (sources.contains("meta")) {
        meta = Map.of(McpGateErrors.META_KEY, token);
      }
    } else if (SampleArguments.properties(definition)
        .containsKey(ToolPolicy.DEFAULT_KEY_ARGUMENT)) {
      putKey(callArguments, ToolPolicy.DEFAULT_KEY_ARGUMENT, token, arguments == null);
    }
    return new CallToolRequest(name, callArguments, meta);
  }

  /**
   * The key argument gets the token: over a sample value (a required key argument got the schema's
   * sample text, the same for every check), but not over a key the check's arguments chose.
   */
  private static void putKey(
      Map<String, Object> arguments, String keyArgument, String token, boolean sample) {
    if (sample) {
      arguments.put(keyArgument, token);
    } else {
      arguments.putIfAbsent(keyArgument, token);
    }
  }

  /**
   * @return the scenario's call with a new key where the gate reads it, when it carries none
   */
  static CallToolRequest withKey(McpSchema.Tool definition, CallToolRequest call, String token) {
    Map<String, Object> gating =
        definition != null
                && definition.meta() != null
                && definition.meta().get(McpGateErrors.META_TOOL) instanceof Map<?, ?> g
            ? castMap(g)
            : null;
    if (gating == null) {
      return call;
    }
    Object keyArgument = gating.get("key_argument");
    List<?> sources = gating.get("key_sources") instanceof List<?> s ? s : List.of();
    Map<String, Object> arguments =
        new LinkedHashMap<>(call.arguments() == null ? Map.of() : call.arguments());
    Map<String, Object> meta = call.meta() == null ? null : new LinkedHashMap<>(call.meta());
    boolean keyed =
        (keyArgument != null && arguments.containsKey(keyArgument.toString()))
            || (meta != null && meta.containsKey(McpGateErrors.META_KEY));
    if (keyed) {
      return call;
    }
    if (keyArgument != null) {
      arguments.put(keyArgument.toString(), token);
    } else if (sources.contains("meta")) {
      meta = meta == null ? new LinkedHashMap<>() : meta;
      meta.put(McpGateErrors.META_KEY, token);
    } else {
      return call;
    }
    return new CallToolRequest(call.name(), arguments, meta);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Map<?, ?> m) {
    return (Map<String, Object>) m;
  }
}
