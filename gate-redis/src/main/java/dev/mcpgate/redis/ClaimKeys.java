package dev.mcpgate.redis;

import dev.mcpgate.core.ClaimId;
import java.nio.charset.StandardCharsets;

/**
 * The Redis key of a claim: the prefix, then tenant, tool and key, each length-prefixed so that
 * no separator trick makes two identities share a key. Each part is written losslessly: UTF-8,
 * with a backslash doubled and a lone UTF-16 surrogate (which UTF-8 cannot carry, and which
 * {@code ClaimId} already refuses) written as {@code \\uXXXX}, so two different strings never
 * become the same bytes. All of one claim lives
 * under this one key, so in Redis Cluster it is in one hash slot by construction.
 */
final class ClaimKeys {
  private final String prefix;

  ClaimKeys(String prefix) {
    this.prefix = prefix;
  }

  byte[] of(ClaimId id) {
    StringBuilder sb = new StringBuilder(prefix.length() + 24 + id.tenant().length()
        + id.tool().length() + id.key().length()).append(prefix);
    part(sb, id.tenant()).append('|');
    part(sb, id.tool()).append('|');
    part(sb, id.key());
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** @return a SCAN pattern that matches exactly the keys under the prefix */
  byte[] pattern() {
    StringBuilder sb = new StringBuilder();
    for (char c : prefix.toCharArray()) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('*').toString().getBytes(StandardCharsets.UTF_8);
  }

  private static StringBuilder part(StringBuilder sb, String value) {
    String escaped = escape(value);
    return sb.append(escaped.length()).append(':').append(escaped);
  }

  static String escape(String value) {
    StringBuilder sb = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\') {
        sb.append("\\\\");
      } else if (Character.isHighSurrogate(c) && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        sb.append(c).append(value.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
