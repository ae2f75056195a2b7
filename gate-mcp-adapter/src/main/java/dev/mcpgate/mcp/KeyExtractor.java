package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.hash.CanonicalJson;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Finds a call's idempotency key in the sources a {@link ToolPolicy} lists, in its order: the key
 * argument, the {@code _meta} entry, or the natural key made of named arguments. The key's rules
 * are checked later, once, by {@link ClaimId}.
 */
final class KeyExtractor {
  private KeyExtractor() {}

  /**
   * @return the key, or null when no source has one
   * @throws InvalidIdempotencyKeyException when a source holds a key that is not a string
   */
  static String find(ToolPolicy policy, CallToolRequest request, Map<String, Object> arguments) {
    for (KeySource source : policy.keySources()) {
      String key = switch (source) {
        case ARGUMENT -> string(arguments.get(policy.keyArgument()),
            "argument " + policy.keyArgument());
        case META -> string(request.meta() == null ? null
            : request.meta().get(McpGateErrors.META_KEY), "_meta " + McpGateErrors.META_KEY);
        case NATURAL -> natural(policy.naturalKey(), arguments);
      };
      if (key != null) {
        return key;
      }
    }
    return null;
  }

  private static String string(Object value, String where) {
    if (value == null || value instanceof String) {
      return (String) value;
    }
    throw new InvalidIdempotencyKeyException(where + " must be a string, was "
        + value.getClass().getSimpleName(), false);
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
   * The natural key: the canonical JSON array of the values, or, past 255 characters, a SHA-256
   * of it ({@code sha256:} and 64 hex digits).
   */
  static String naturalKey(List<Object> values) {
    String canonical = CanonicalJson.toCanonicalString(values);
    if (canonical.codePointCount(0, canonical.length()) <= ClaimId.MAX_LENGTH
        && canonical.chars().noneMatch(Character::isISOControl)) {
      return canonical;
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(canonical.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
