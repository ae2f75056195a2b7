package dev.mcpgate.client;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a tool's calls carry the intent key (in an argument, or in the request's {@code _meta}),
 * and whether the tool says that sending a call again is safe.
 *
 * @param inArgument true for an argument, false for {@code _meta}
 * @param name the argument's name, or the {@code _meta} entry's
 * @param retrySafe true when the tool's definition declares {@code idempotentHint: true} (every
 *     tool an MCP Gate server gates does): a call whose answer was lost may be sent again; false
 *     for any other tool, and for one the server did not list
 */
record KeyPlacement(boolean inArgument, String name, boolean retrySafe) {

  /** The {@code _meta} entry of a gated tool's definition that says how it is gated. */
  static final String META_TOOL = "dev.mcpgate/idempotency";

  /** For a tool the server did not list: the key in {@code _meta}, and no retry after a loss. */
  static KeyPlacement unlisted() {
    return new KeyPlacement(false, IdempotentCalls.META_KEY, false);
  }

  /**
   * Reads a tool's definition, as an MCP Gate server writes it: its {@code _meta} {@value
   * #META_TOOL} lists {@code key_sources} in the server's order of precedence, with {@code
   * key_argument} and {@code meta_key}; the first of {@code argument} and {@code meta} wins. Else a
   * property {@code keyArgument} in the input schema is the key argument. Else {@code _meta}.
   */
  static KeyPlacement of(McpSchema.Tool tool, String keyArgument) {
    boolean retrySafe =
        tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().idempotentHint());
    if (tool.meta() != null && tool.meta().get(META_TOOL) instanceof Map<?, ?> gating) {
      if (gating.get("key_sources") instanceof List<?> sources) {
        for (Object source : sources) {
          if ("argument".equals(source) && gating.get("key_argument") instanceof String name) {
            return new KeyPlacement(true, name, retrySafe);
          }
          if ("meta".equals(source)) {
            return new KeyPlacement(
                false,
                gating.get("meta_key") instanceof String name ? name : IdempotentCalls.META_KEY,
                retrySafe);
          }
        }
      }
      // a natural key or a header only: the server ignores what it does not read, and every retry
      // sends the same arguments, which is what a natural key needs
      return new KeyPlacement(false, IdempotentCalls.META_KEY, retrySafe);
    }
    if (tool.inputSchema() != null
        && tool.inputSchema().get("properties") instanceof Map<?, ?> properties
        && properties.containsKey(keyArgument)) {
      return new KeyPlacement(true, keyArgument, retrySafe);
    }
    return new KeyPlacement(false, IdempotentCalls.META_KEY, retrySafe);
  }

  /**
   * @return the request of one attempt: the arguments, with the key where the tool reads it
   * @throws CallerMistake if the arguments already hold the key argument
   */
  McpSchema.CallToolRequest request(String tool, Map<String, ?> arguments, IntentKey key) {
    Map<String, Object> args = new LinkedHashMap<>(arguments);
    Map<String, Object> meta = null;
    if (inArgument) {
      if (args.containsKey(name)) {
        throw new CallerMistake(
            "the arguments of "
                + tool
                + " already hold its key argument \""
                + name
                + "\"; pass the key as an IntentKey instead (IntentKey.of(yourOperationId))");
      }
      args.put(name, key.value());
    } else {
      meta = Map.of(name, key.value());
    }
    return McpSchema.CallToolRequest.builder(tool).arguments(args).meta(meta).build();
  }

  /** A mistake of the caller's, found while an attempt is built: thrown, never retried. */
  static final class CallerMistake extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    CallerMistake(String message) {
      super(message);
    }
  }
}
