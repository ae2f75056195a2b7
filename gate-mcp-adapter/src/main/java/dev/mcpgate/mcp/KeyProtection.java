package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimId;
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
    return digests(source) ? digest.digest(tenant, tool, rawKey) : rawKey;
  }

  /**
   * @return the raw key from {@code source}, checked against the key rules; when it will be
   *     digested, a broken rule is told without the key (which may be personal data)
   * @throws dev.mcpgate.core.InvalidIdempotencyKeyException naming the rule it breaks
   */
  String validated(String rawKey, KeySource source) {
    return digests(source)
        ? ClaimId.validateWithoutEcho(rawKey, "idempotency key")
        : ClaimId.validate(rawKey, "idempotency key");
  }

  private boolean digests(KeySource source) {
    return source == KeySource.NATURAL || allKeys;
  }
}
