package dev.mcpgate.core.internal;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * SHA-256 digests and HMACs for gate-core's hashes (arguments, keys, token fingerprints), each a
 * copy of one prototype: {@code MessageDigest.getInstance} looks the algorithm up among the
 * security providers on every call, which was a twentieth of a gated call's own work; a copy is an
 * array copy. Not API (see the package).
 */
public final class Sha256 {
  private static final String HMAC = "HmacSHA256";
  private static final MessageDigest PROTOTYPE = lookUp();

  private Sha256() {}

  /**
   * @return a new SHA-256 digest, for one hash, on one thread
   */
  public static MessageDigest digest() {
    return copy(PROTOTYPE); // the prototype is never updated, only copied
  }

  /**
   * @return a copy of {@code prototype}, or a new SHA-256 digest when its provider's cannot be
   *     copied
   */
  static MessageDigest copy(MessageDigest prototype) {
    try {
      return (MessageDigest) prototype.clone();
    } catch (CloneNotSupportedException e) {
      return lookUp();
    }
  }

  /**
   * @param secret the HMAC key
   * @return a new HMAC-SHA256 set up with {@code secret}
   */
  public static Mac hmac(byte[] secret) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(secret, HMAC));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
    }
  }

  /**
   * @param prototype an HMAC set up with {@code secret}, never updated, only copied
   * @param secret its key, to set a new one up with when the provider's cannot be copied
   * @return a copy of {@code prototype}, for one digest, on one thread
   */
  public static Mac hmac(Mac prototype, byte[] secret) {
    try {
      return (Mac) prototype.clone(); // the key's set-up copied, not done again
    } catch (CloneNotSupportedException e) {
      return hmac(secret);
    }
  }

  private static MessageDigest lookUp() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
