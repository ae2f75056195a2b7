package dev.mcpgate.core;

/**
 * Transforms result bytes on their way into the store and back: to redact secrets before they are
 * stored, or to encrypt results at rest. The default, {@link #identity()}, stores them as they are.
 * The size limit applies to the encoded bytes.
 */
public interface ResultCodec {

  /**
   * @param id the claim whose result this is (for per-tenant keys, say)
   * @param plain the result bytes from the {@link ResultMapper}; not to be changed
   * @return the bytes to store
   */
  byte[] encode(ClaimId id, byte[] plain);

  /**
   * @param id the claim whose result this is
   * @param stored the stored bytes; not to be changed (decode into a new array, not in place): a
   *     store in memory or a near-cache hands every replay of a key the same array
   * @return the bytes for the {@link ResultMapper}
   */
  byte[] decode(ClaimId id, byte[] stored);

  /**
   * @return the codec that stores results as they are
   */
  static ResultCodec identity() {
    return IdentityCodec.INSTANCE;
  }
}
