package dev.mcpgate.core;

import dev.mcpgate.core.internal.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Derives the stable downstream key of a claim: {@code mcpgate-} followed by 40 hex digits of a
 * SHA-256 over the length-prefixed tenant, tool and key. The same (tenant, tool, key) always gives
 * the same key, on every attempt and every server; different ones never collide in practice. 48
 * characters of {@code [a-z0-9-]}, accepted by payment providers and as a mail Message-ID local
 * part.
 */
public final class DownstreamKey {
  private DownstreamKey() {}

  /**
   * @param id the claim
   * @return its downstream key
   */
  public static String of(ClaimId id) {
    MessageDigest sha = Sha256.digest();
    for (String part : new String[] {id.tenant(), id.tool(), id.key()}) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      sha.update(
          new byte[] {
            (byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16),
            (byte) (bytes.length >>> 8), (byte) bytes.length
          });
      sha.update(bytes);
    }
    return "mcpgate-" + HexFormat.of().formatHex(sha.digest(), 0, 20);
  }
}
