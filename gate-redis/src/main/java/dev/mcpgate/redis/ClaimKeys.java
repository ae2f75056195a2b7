package dev.mcpgate.redis;

import dev.mcpgate.core.ClaimId;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The Redis key of a claim: the prefix, then tenant, tool and key, each length-prefixed so that no
 * separator trick makes two identities share a key. Each part is written losslessly: UTF-8, with a
 * backslash doubled and a lone UTF-16 surrogate (which UTF-8 cannot carry, and which {@code
 * ClaimId} already refuses) written as {@code \\uXXXX}, so two different strings never become the
 * same bytes. All of one claim lives under this one key, so every script touches one key, in one
 * hash slot, by construction.
 *
 * <p>The cluster layout ({@link #hashTagged}) puts a hash tag right after the prefix: {@code
 * prefix{xxxxxxxx}...}, eight hex digits of a CRC-32 of the identity part. Redis Cluster hashes
 * only the text between the first <code>{</code> and the next <code>}</code>, so without the tag a
 * tenant, tool or key containing braces would pick its own slot (a caller could aim every key at
 * one node); with it, claims spread evenly over the slots whatever they contain. The single-node
 * layout has no tag and is unchanged, so existing rows stay readable.
 */
final class ClaimKeys {
  private final String prefix;
  private final boolean hashTagged;

  ClaimKeys(String prefix) {
    this(prefix, false);
  }

  private ClaimKeys(String prefix, boolean hashTagged) {
    this.prefix = prefix;
    this.hashTagged = hashTagged;
  }

  /**
   * The cluster layout.
   *
   * @param prefix the key prefix; must not contain <code>{</code>, which would make the prefix's
   *     text the hash tag and put every claim in one slot
   * @throws IllegalArgumentException naming the prefix when it contains <code>{</code>
   */
  static ClaimKeys hashTagged(String prefix) {
    if (prefix.indexOf('{') >= 0) {
      throw new IllegalArgumentException(
          "keyPrefix must not contain '{' on a Redis Cluster (it"
              + " would become the hash tag and put every claim in one slot), was \""
              + prefix
              + "\"");
    }
    return new ClaimKeys(prefix, true);
  }

  byte[] of(ClaimId id) {
    StringBuilder sb =
        new StringBuilder(24 + id.tenant().length() + id.tool().length() + id.key().length());
    part(sb, id.tenant()).append('|');
    part(sb, id.tool()).append('|');
    part(sb, id.key());
    byte[] identity = sb.toString().getBytes(StandardCharsets.UTF_8);
    String head = hashTagged ? prefix + "{" + tag(identity) + "}" : prefix;
    byte[] start = head.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[start.length + identity.length];
    System.arraycopy(start, 0, key, 0, start.length);
    System.arraycopy(identity, 0, key, start.length, identity.length);
    return key;
  }

  private static String tag(byte[] identity) {
    CRC32 crc = new CRC32();
    crc.update(identity);
    return String.format("%08x", crc.getValue());
  }

  /**
   * @return a SCAN pattern that matches exactly the keys under the prefix
   */
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
      } else if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
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
