package dev.mcpgate.core.hash;

import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.internal.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Computes the versioned argument hash that a claim stores: {@code "v1:"} followed by the lowercase
 * hex SHA-256 of the arguments' {@linkplain CanonicalJson canonical form}, with the ignored
 * arguments (the key argument, any explicitly ignored ones) removed first.
 *
 * <p>The version tag lets a future canonical form coexist with stored v1 hashes: a stored hash is
 * always compared with a hash of the same version ({@link #matches}), so a change of form cannot
 * turn into false conflicts or false replays.
 */
public final class ArgumentHasher {

  /** The version this library writes. */
  public static final String CURRENT_VERSION = "v1";

  private static final byte[] PREFIX = (CURRENT_VERSION + ":").getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private ArgumentHasher() {}

  /**
   * @param arguments the tool arguments (null means none)
   * @param ignored names of top-level arguments left out of the hash
   * @return the versioned hash, {@code v1:<64 hex digits>}
   * @throws InvalidArgumentsException if the arguments have no canonical form
   */
  public static String hash(Map<String, ?> arguments, Set<String> ignored) {
    Map<String, ?> effective = arguments == null ? Map.of() : arguments;
    if (!ignored.isEmpty()) {
      boolean any = false;
      for (String name : ignored) {
        any |= effective.containsKey(name);
      }
      if (any) {
        Map<String, Object> copy = new HashMap<>(effective);
        copy.keySet().removeAll(ignored);
        effective = copy;
      }
    }
    MessageDigest sha = Sha256.digest();
    CanonicalJson.digest(effective, sha);
    return versioned(sha.digest());
  }

  /** {@code v1:} and the digest in lowercase hex, built in one array. */
  private static String versioned(byte[] digest) {
    byte[] text = new byte[PREFIX.length + 2 * digest.length];
    System.arraycopy(PREFIX, 0, text, 0, PREFIX.length);
    int pos = PREFIX.length;
    for (byte b : digest) {
      text[pos++] = HEX[(b >> 4) & 0xf];
      text[pos++] = HEX[b & 0xf];
    }
    return new String(text, StandardCharsets.ISO_8859_1);
  }

  /**
   * Compares a stored hash with the current hash of a call's arguments. A stored hash of another
   * version is never compared as if it were current: this version can only compute v1, so a hash of
   * any other version fails closed (when a v2 exists, v1 hashes will be recomputed in v1).
   *
   * @param storedHash a hash as stored by a claim
   * @param currentHash the hash of the new arguments in the current version
   * @return true when both stand for the same arguments
   * @throws IdempotencyException if the stored hash has a version this library cannot compute
   */
  public static boolean matches(String storedHash, String currentHash) {
    if (storedHash.equals(currentHash)) {
      return true;
    }
    if (storedHash.startsWith(CURRENT_VERSION + ":")) {
      return false;
    }
    int colon = storedHash.indexOf(':');
    String version = colon < 0 ? "(none)" : storedHash.substring(0, colon);
    throw new IdempotencyException(
        "stored argument hash has version "
            + version
            + ", which this MCP Gate version cannot compute (it writes "
            + CURRENT_VERSION
            + "); upgrade every server that shares the store to the same MCP Gate version");
  }
}
