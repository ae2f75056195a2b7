package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The fencing token of one attempt. Every fresh claim and every takeover gets a new random token;
 * completion, release and lease extension succeed only with the token that currently holds the
 * claim, so a stale attempt can never overwrite or delete the row of the attempt that replaced it.
 *
 * @param value the token text (a random UUID for tokens minted by the gate)
 */
public record LeaseToken(String value) {

  /** @throws NullPointerException if value is null */
  public LeaseToken {
    Checks.notNull(value, "value");
    if (value.isEmpty() || value.length() > 64) {
      throw new IllegalArgumentException("lease token must be 1..64 characters, was " + value.length());
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

  @Override
  public String toString() {
    return value;
  }
}
