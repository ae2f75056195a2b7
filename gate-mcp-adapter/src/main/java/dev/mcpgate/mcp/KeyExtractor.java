package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.hash.CanonicalJson;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds a call's idempotency key in the sources a {@link ToolPolicy} lists, in its order: the key
 * argument, the {@code _meta} entry, or the natural key made of named arguments. A key sent both as
 * the argument and in {@code _meta} with different values is refused as ambiguous (the safe choice:
 * no precedence could know which one the client reuses on a retry). The key's rules are checked
 * later, once, by {@link ClaimId}.
 */
final class KeyExtractor {
  private KeyExtractor() {}

  /** A key and the source it came from. */
  record Found(String key, KeySource source) {}

  /**
   * @return the key and its source, or null when no source has one
   * @throws InvalidIdempotencyKeyException when a source holds a key that is not a string
   */
  static Found find(
      ToolPolicy policy,
      CallToolRequest request,
      Map<String, Object> arguments,
      McpTransportContext context) {
    Map<KeySource, String> explicit = new EnumMap<>(KeySource.class);
    for (KeySource source : policy.keySources()) {
      Object raw =
          switch (source) {
            case ARGUMENT -> arguments.get(policy.keyArgument());
            case META -> request.meta() == null ? null : request.meta().get(McpGateErrors.META_KEY);
            case HEADER -> context.get(KeySource.HEADER_CONTEXT_KEY);
            case NATURAL -> null;
          };
      String key = string(raw, source, policy);
      if (key != null) {
        explicit.put(source, key);
      }
    }
    if (explicit.size() > 1 && Set.copyOf(explicit.values()).size() > 1) {
      // the client sent two keys: which one it reuses on a retry is unknowable, so neither
      throw new InvalidIdempotencyKeyException(
          "the call carries different keys, in "
              + String.join(
                  " and in ", explicit.keySet().stream().map(s -> where(s, policy)).toList())
              + "; send the key in one place only",
          false);
    }
    for (KeySource source : policy.keySources()) {
      String key =
          source == KeySource.NATURAL
              ? natural(policy.naturalKey(), arguments)
              : explicit.get(source);
      if (key != null) {
        return new Found(key, source);
      }
    }
    return null;
  }

  private static String where(KeySource source, ToolPolicy policy) {
    return switch (source) {
      case ARGUMENT -> "the argument " + policy.keyArgument();
      case META -> "_meta " + McpGateErrors.META_KEY;
      case HEADER -> "the " + KeySource.HEADER_CONTEXT_KEY + " header";
      case NATURAL -> "the arguments " + policy.naturalKey();
    };
  }

  private static String string(Object value, KeySource source, ToolPolicy policy) {
    if (value == null || value instanceof String) {
      return (String) value;
    }
    String where = where(source, policy); // only for the message: most calls never need it
    if (value instanceof List<?> values) { // KeySource.copyHeader: a header sent with two values
      throw new InvalidIdempotencyKeyException(
          where + " was sent " + values.size() + " times with different values; send it once",
          false);
    }
    throw new InvalidIdempotencyKeyException(
        where + " must be a string, was " + value.getClass().getSimpleName(), false);
  }

  private static String natural(List<String> names, Map<String, Object> arguments) {
    List<Object> values = new ArrayList<>(names.size());
    for (String name : names) {
      Object value = arguments.get(name);
      if (value == null) {
        return null;
      }
      values.add(value);
    }
    return naturalKey(values);
  }

  /**
   * The natural key: the canonical JSON array of the values, or, past 255 characters, a SHA-256 of
   * it ({@code sha256:} and 64 hex digits).
   */
  static String naturalKey(List<Object> values) {
    String canonical = CanonicalJson.toCanonicalString(values);
    if (canonical.codePointCount(0, canonical.length()) <= ClaimId.MAX_LENGTH
        && canonical.chars().noneMatch(Character::isISOControl)) {
      return canonical;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
