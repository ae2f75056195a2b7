package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.internal.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The fencing token of one attempt. Every fresh claim and every takeover gets a new random token;
 * completion, release and lease extension succeed only with the token that currently holds the
 * claim, so a stale attempt can never overwrite or delete the row of the attempt that replaced it.
 *
 * @param value the token text (a random UUID for tokens minted by the gate: of version 4 for a
 *     call's attempt, of version 8 for an operator's settlement, under which no action runs)
 */
public record LeaseToken(String value) {

  /**
   * @throws NullPointerException if value is null
   */
  public LeaseToken {
    Checks.notNull(value, "value");
    if (value.isEmpty() || value.length() > 64) {
      throw new IllegalArgumentException(
          "lease token must be 1..64 characters, was " + value.length());
    }
  }

  /**
   * @return a new random token: 122 random bits in UUID form. Tokens fence attempts against each
   *     other; they need to be unique, not secret, so a fast non-blocking generator is used.
   */
  public static LeaseToken random() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new LeaseToken(new UUID(msb, lsb).toString());
  }

  /**
   * @return 12 hex digits of a SHA-256 of the token: the same for every event of one attempt,
   *     different between attempts in practice, and of no use for completing or releasing the claim
   *     (the token itself fences; logs and metrics should carry this instead)
   */
  public String fingerprint() {
    byte[] digest = Sha256.digest().digest(value.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(digest, 0, 6);
  }

  @Override
  public String toString() {
    return value;
  }
}
