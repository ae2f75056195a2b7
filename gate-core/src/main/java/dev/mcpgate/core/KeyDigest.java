package dev.mcpgate.core;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.internal.Sha256;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.Mac;

/**
 * Turns a raw idempotency key into the digest that is stored, logged and sent to the store in its
 * place, for keys that are personal data: a natural key is argument values in clear (an email
 * address, an order id), and what the gate keeps of it should not be. The gate still finds, replays
 * and conflicts exactly as before, since the same raw key always gives the same digest within its
 * (tenant, tool); an operator looks a call up by its raw key through {@link #digested(ClaimId)}.
 *
 * <p>With a secret ({@link #hmacSha256(byte[])}), the digest is an HMAC-SHA-256: whoever reads the
 * store or the logs without the secret cannot test guesses ("was alice@example.com's reset sent?").
 * Without one ({@link #sha256()}), it is a plain SHA-256, which hides the value from a casual
 * reader but not from a guess. The digest is {@code "k1:"} or {@code "h1:"} (plain or keyed) and 43
 * base64url characters, and binds the tenant and tool too.
 */
public final class KeyDigest {
  private static final String PLAIN = "k1:";
  private static final String KEYED = "h1:";

  private final byte[] secret; // null: plain SHA-256
  private final Mac keyed; // initialized with the secret, only copied; null for plain SHA-256

  private KeyDigest(byte[] secret) {
    this.secret = secret;
    this.keyed = secret == null ? null : Sha256.hmac(secret);
  }

  /**
   * @param secret at least 16 bytes (32 recommended), from your secret store; the same on every
   *     server that shares the store, or their keys will not meet
   * @return a keyed digest
   */
  public static KeyDigest hmacSha256(byte[] secret) {
    notNull(secret, "secret");
    if (secret.length < 16) {
      throw new IllegalArgumentException(
          "a key digest secret must be at least 16 bytes, was " + secret.length);
    }
    return new KeyDigest(secret.clone());
  }

  /**
   * @return a plain SHA-256 digest, for when no secret is configured
   */
  public static KeyDigest sha256() {
    return new KeyDigest(null);
  }

  /**
   * @return true when the digest is keyed by a secret
   */
  public boolean isKeyed() {
    return secret != null;
  }

  /**
   * @param id a claim with its raw key
   * @return the same claim with its key replaced by the digest of (tenant, tool, key)
   */
  public ClaimId digested(ClaimId id) {
    notNull(id, "id");
    return new ClaimId(id.tenant(), id.tool(), digest(id.tenant(), id.tool(), id.key()));
  }

  /**
   * @return true when {@code key} has the form of a digest this class writes (it may still be a raw
   *     key that looks like one)
   */
  public static boolean looksDigested(String key) {
    return key != null && key.length() == 46 && (key.startsWith(PLAIN) || key.startsWith(KEYED));
  }

  /**
   * @return the digest of the raw {@code key} within (tenant, tool)
   */
  public String digest(String tenant, String tool, String key) {
    notNull(tenant, "tenant");
    notNull(tool, "tool");
    notNull(key, "key");
    byte[] input = framed(tenant, tool, key);
    byte[] sum;
    if (keyed == null) {
      sum = Sha256.digest().digest(input);
    } else {
      sum = Sha256.hmac(keyed, secret).doFinal(input);
    }
    return (secret == null ? PLAIN : KEYED)
        + Base64.getUrlEncoder().withoutPadding().encodeToString(sum);
  }

  /** Each part length-prefixed, so that no two (tenant, tool, key) frame alike. */
  private static byte[] framed(String... parts) {
    byte[][] bytes = new byte[parts.length][];
    int size = 0;
    for (int i = 0; i < parts.length; i++) {
      bytes[i] = parts[i].getBytes(StandardCharsets.UTF_8);
      size += 4 + bytes[i].length;
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    for (byte[] b : bytes) {
      out.putInt(b.length).put(b);
    }
    return out.array();
  }

  @Override
  public String toString() {
    return secret == null ? "KeyDigest[sha256]" : "KeyDigest[hmacSha256]";
  }
}
