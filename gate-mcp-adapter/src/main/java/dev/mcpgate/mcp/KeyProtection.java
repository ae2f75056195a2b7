package dev.mcpgate.mcp;

import dev.mcpgate.core.KeyDigest;

/**
 * Which keys are replaced by their digest before the gate sees them: natural keys always (they are
 * argument values in clear, often personal data), every key when asked.
 *
 * @param digest the digest
 * @param allKeys true to digest the keys clients send too
 */
record KeyProtection(KeyDigest digest, boolean allKeys) {

  /**
   * @return the key the gate stores, logs and sends to the store for a key from {@code source}
   */
  String protect(String tenant, String tool, String rawKey, KeySource source) {
    return source == KeySource.NATURAL || allKeys ? digest.digest(tenant, tool, rawKey) : rawKey;
  }
}
