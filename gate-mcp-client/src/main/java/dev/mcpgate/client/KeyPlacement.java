package dev.mcpgate.client;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
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
 *     tool an MCP Gate server gates does) and the server reads the key where the client puts it: a
 *     call whose answer was lost may be sent again; false for any other tool, and for one the
 *     server did not list
 * @param naturalKey for a tool that declares {@code idempotentHint: true} and whose server reads a
 *     natural key before the key the client sends (or reads no such key), its arguments: a call
 *     that holds every one of them, none null, is gated under its natural key, and is retry-safe
 *     (the server reads a null value as no natural key, and then the next source); empty otherwise
 */
record KeyPlacement(boolean inArgument, String name, boolean retrySafe, List<String> naturalKey) {

  /** The {@code _meta} entry of a gated tool's definition that says how it is gated. */
  static final String META_TOOL = "dev.mcpgate/idempotency";

  KeyPlacement {
    naturalKey = List.copyOf(naturalKey);
  }

  /** For a tool the server did not list: the key in {@code _meta}, and no retry after a loss. */
  static KeyPlacement unlisted() {
    return new KeyPlacement(false, IdempotentCalls.META_KEY, false, List.of());
  }

  /**
   * @param arguments the call's arguments, without the key
   * @return whether a call of these arguments whose answer was lost may be sent again with the same
   *     key: the server reads the key where the client puts it, or every natural-key argument is in
   *     the call and not null (and the tool declares {@code idempotentHint: true}); a null value is
   *     no natural key to the server, which then runs the call ungated
   */
  boolean retrySafe(Map<String, ?> arguments) {
    return retrySafe || holdsNaturalKey(arguments);
  }

  /**
   * @return true when the tool is keyed by a natural key and the arguments hold every one of its
   *     arguments, none null
   */
  boolean holdsNaturalKey(Map<String, ?> arguments) {
    return !naturalKey.isEmpty() && naturalKey.stream().allMatch(n -> arguments.get(n) != null);
  }

  /**
   * What the server gates a call of these arguments under: the intent key (wherever it is put, in
   * an argument or in {@code _meta}: the same value), or the natural key of these arguments.
   *
   * @param intentKey true for the intent key
   * @param naturalKey the natural key's arguments; empty for the intent key
   */
  record Claim(boolean intentKey, List<String> naturalKey) {}

  /**
   * @return what the server gates a call of these arguments under, or null when it gates it under
   *     nothing the client sends (a header-only tool, a natural-key call without its key, a tool
   *     that does not declare a retry safe): two placements with equal claims gate a call of the
   *     same arguments under the same key
   */
  Claim claim(Map<String, ?> arguments) {
    if (holdsNaturalKey(arguments)) {
      return new Claim(false, naturalKey); // read before the intent key, where both are
    }
    return retrySafe ? new Claim(true, List.of()) : null;
  }

  /**
   * Reads a tool's definition, as an MCP Gate server writes it: its {@code _meta} {@value
   * #META_TOOL} lists {@code key_sources} in the server's order of precedence, with {@code
   * key_argument} and {@code meta_key}; the first of {@code argument} (when the input schema has
   * that property) and {@code meta} wins, and a {@code natural} source before it is kept: a call
   * that holds the natural key is gated under it, not under the intent key. A gated tool with
   * neither (a header or a natural key only) gets the key in {@code _meta}, which its server does
   * not read: it is retry-safe only for a call that holds every {@code natural_key} argument. Else
   * a property {@code keyArgument} in the input schema is the key argument. Else {@code _meta}.
   */
  static KeyPlacement of(McpSchema.Tool tool, String keyArgument) {
    boolean hint =
        tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().idempotentHint());
    Map<?, ?> properties =
        tool.inputSchema() != null && tool.inputSchema().get("properties") instanceof Map<?, ?> p
            ? p
            : Map.of();
    if (tool.meta() != null && tool.meta().get(META_TOOL) instanceof Map<?, ?> gating) {
      List<?> sources = gating.get("key_sources") instanceof List<?> s ? s : List.of();
      List<String> natural = List.of(); // a natural key the server reads before the intent key
      for (Object source : sources) {
        if ("natural".equals(source) && hint) {
          natural = naturalKey(gating);
        }
        if ("argument".equals(source)
            && gating.get("key_argument") instanceof String name
            && properties.containsKey(name)) {
          return new KeyPlacement(true, name, hint, natural);
        }
        if ("meta".equals(source)) {
          return new KeyPlacement(
              false,
              gating.get("meta_key") instanceof String name ? name : IdempotentCalls.META_KEY,
              hint,
              natural);
        }
      }
      // a natural key or a header only: the server ignores the key in _meta; a retry is safe only
      // when the call holds the whole natural key (every retry sends the same arguments)
      return new KeyPlacement(false, IdempotentCalls.META_KEY, false, natural);
    }
    if (properties.containsKey(keyArgument)) {
      return new KeyPlacement(true, keyArgument, hint, List.of());
    }
    return new KeyPlacement(false, IdempotentCalls.META_KEY, hint, List.of());
  }

  /** The {@code natural_key} argument names of a gated tool's definition; empty if unreadable. */
  private static List<String> naturalKey(Map<?, ?> gating) {
    List<String> natural = new ArrayList<>();
    if (gating.get("natural_key") instanceof List<?> names) {
      for (Object n : names) {
        if (n instanceof String s) {
          natural.add(s);
        } else {
          return List.of();
        }
      }
    }
    return natural;
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
