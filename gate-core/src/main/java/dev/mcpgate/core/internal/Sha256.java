package dev.mcpgate.core.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 digests for gate-core's hashes (arguments, keys, token fingerprints), each a copy of one
 * prototype: {@code MessageDigest.getInstance} looks the algorithm up among the security providers
 * on every call, which was a twentieth of a gated call's own work; a copy is an array copy. Not API
 * (see the package).
 */
public final class Sha256 {
  private static final MessageDigest PROTOTYPE = lookUp();

  private Sha256() {}

  /**
   * @return a new SHA-256 digest, for one hash, on one thread
   */
  public static MessageDigest digest() {
    try {
      return (MessageDigest) PROTOTYPE.clone(); // the prototype is never updated, only copied
    } catch (CloneNotSupportedException e) {
      return lookUp(); // a provider whose digest cannot be copied
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
