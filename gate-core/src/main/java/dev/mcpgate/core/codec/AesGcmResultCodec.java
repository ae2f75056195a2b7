package dev.mcpgate.core.codec;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.ResultCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts stored results with AES-GCM (the JDK's own, no dependency), so that whoever reads the
 * claims table (a database operator, a backup, a replica) reads no result. Each stored result
 * carries the id of the key that encrypted it, so keys rotate without a migration: new results are
 * encrypted with the current key, and results stored under an older key stay readable as long as
 * that key is still given as a {@linkplain Builder#previousKey previous key}.
 *
 * <pre>{@code
 * ResultCodec codec = AesGcmResultCodec.builder()
 *     .currentKey("2026-12", kms.key("mcpgate/2026-12"))    // encrypts new results
 *     .previousKey("2026-06", kms.key("mcpgate/2026-06"))   // still decrypts older ones
 *     .build();
 * IdempotencyGate gate = IdempotencyGate.builder(store).codec(codec).build();
 * }</pre>
 *
 * <p>Each result is bound to its claim: the tenant, tool and key are authenticated data, so a
 * stored result copied to another row (another tenant's, say) fails to decrypt instead of being
 * replayed there. A fresh random 96-bit nonce per result. Layout of a stored result: one format
 * byte ({@value #FORMAT}), the key id's length (one byte) and UTF-8 bytes, the 12-byte nonce, then
 * the ciphertext with its 16-byte tag: 30 bytes plus the key id over the plain result, which the
 * gate's size limit counts.
 *
 * <p>A result that cannot be decrypted (an unknown key id, a wrong key, bytes changed in the store)
 * is an {@link IdempotencyException} naming the claim and the key id, never a silent wrong replay.
 */
public final class AesGcmResultCodec implements ResultCodec {
  /** The format byte of this layout. */
  public static final int FORMAT = 1;

  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final String TRANSFORMATION = "AES/GCM/NoPadding";

  private final String currentId;
  private final Map<String, SecretKey> keys;
  private final SecureRandom random = new SecureRandom();

  private AesGcmResultCodec(Builder b) {
    this.currentId = b.currentId;
    this.keys = Map.copyOf(b.keys);
  }

  /**
   * @return a builder; a current key is required
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public byte[] encode(ClaimId id, byte[] plain) {
    byte[] keyId = currentId.getBytes(StandardCharsets.UTF_8);
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    byte[] sealed;
    try {
      Cipher cipher = Cipher.getInstance(TRANSFORMATION);
      cipher.init(Cipher.ENCRYPT_MODE, keys.get(currentId), new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(associatedData(id, keyId));
      sealed = cipher.doFinal(plain);
    } catch (GeneralSecurityException e) {
      throw new IdempotencyException(
          "could not encrypt the result of "
              + id
              + " with key \""
              + currentId
              + "\": "
              + e.getMessage(),
          e);
    }
    return ByteBuffer.allocate(2 + keyId.length + NONCE_BYTES + sealed.length)
        .put((byte) FORMAT)
        .put((byte) keyId.length)
        .put(keyId)
        .put(nonce)
        .put(sealed)
        .array();
  }

  @Override
  public byte[] decode(ClaimId id, byte[] stored) {
    if (stored.length < 2 || stored[0] != FORMAT) {
      throw new IdempotencyException(
          "the stored result of "
              + id
              + " is not in the encrypted"
              + " format "
              + FORMAT
              + " ("
              + stored.length
              + " bytes"
              + (stored.length > 0 ? ", format byte " + stored[0] : "")
              + "); was it stored without this codec?");
    }
    int idLength = stored[1] & 0xff;
    if (stored.length < 2 + idLength + NONCE_BYTES + TAG_BITS / 8) {
      throw new IdempotencyException(
          "the stored result of " + id + " is cut short (" + stored.length + " bytes)");
    }
    byte[] keyId = new byte[idLength];
    System.arraycopy(stored, 2, keyId, 0, idLength);
    String keyName = new String(keyId, StandardCharsets.UTF_8);
    SecretKey key = keys.get(keyName);
    if (key == null) {
      throw new IdempotencyException(
          "the stored result of "
              + id
              + " was encrypted with key \""
              + keyName
              + "\", which this codec does not have (it has "
              + keys.keySet()
              + "); give it as a previous key");
    }
    int offset = 2 + idLength;
    try {
      Cipher cipher = Cipher.getInstance(TRANSFORMATION);
      cipher.init(
          Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, stored, offset, NONCE_BYTES));
      cipher.updateAAD(associatedData(id, keyId));
      return cipher.doFinal(stored, offset + NONCE_BYTES, stored.length - offset - NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IdempotencyException(
          "the stored result of "
              + id
              + " does not decrypt with key \""
              + keyName
              + "\": it was changed, copied from another claim, or encrypted with another"
              + " key of that id",
          e);
    }
  }

  /** The claim and the key id, length-prefixed so no two claims share authenticated data. */
  private static byte[] associatedData(ClaimId id, byte[] keyId) {
    byte[][] parts = {
      id.tenant().getBytes(StandardCharsets.UTF_8),
      id.tool().getBytes(StandardCharsets.UTF_8),
      id.key().getBytes(StandardCharsets.UTF_8),
      keyId
    };
    int size = 0;
    for (byte[] p : parts) {
      size += 4 + p.length;
    }
    ByteBuffer aad = ByteBuffer.allocate(size);
    for (byte[] p : parts) {
      aad.putInt(p.length).put(p);
    }
    return aad.array();
  }

  /** Builds the codec; each setter checks its argument and names what is wrong. */
  public static final class Builder {
    private String currentId;
    private final Map<String, SecretKey> keys = new LinkedHashMap<>();

    private Builder() {}

    /**
     * @param id the key's id, stored with each result it encrypts: 1 to 255 UTF-8 bytes
     * @param key an AES key of 128, 192 or 256 bits
     */
    public Builder currentKey(String id, SecretKey key) {
      add(id, key);
      this.currentId = id;
      return this;
    }

    /**
     * @param id the id of a key that encrypted results still stored, which this codec must still
     *     read; may be called more than once
     * @param key that AES key
     */
    public Builder previousKey(String id, SecretKey key) {
      add(id, key);
      return this;
    }

    private void add(String id, SecretKey key) {
      notNull(id, "id");
      notNull(key, "key");
      int bytes = id.getBytes(StandardCharsets.UTF_8).length;
      if (bytes < 1 || bytes > 255) {
        throw new IllegalArgumentException(
            "a key id must be 1 to 255 UTF-8 bytes, was " + bytes + " (\"" + id + "\")");
      }
      if (!"AES".equalsIgnoreCase(key.getAlgorithm())) {
        throw new IllegalArgumentException(
            "key \"" + id + "\" must be an AES key, was " + key.getAlgorithm());
      }
      byte[] encoded = key.getEncoded();
      if (encoded != null && encoded.length != 16 && encoded.length != 24 && encoded.length != 32) {
        throw new IllegalArgumentException(
            "key \"" + id + "\" must be 128, 192 or 256 bits, was " + encoded.length * 8);
      }
      SecretKey earlier = keys.putIfAbsent(id, key);
      if (earlier != null && !earlier.equals(key)) {
        throw new IllegalArgumentException("key id \"" + id + "\" was given twice with two keys");
      }
    }

    /**
     * @return the codec
     * @throws IllegalStateException if no current key was given
     */
    public AesGcmResultCodec build() {
      if (currentId == null) {
        throw new IllegalStateException(
            "an AesGcmResultCodec needs a current key: call" + " currentKey(id, key)");
      }
      return new AesGcmResultCodec(this);
    }
  }
}
