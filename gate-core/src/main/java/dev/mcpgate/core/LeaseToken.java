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
  private static final int SETTLEMENT_VERSION = 8;

  /** Where the version digit stands in a UUID's text. */
  private static final int VERSION_AT = 14;

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
    return random(4);
  }

  /**
   * @return a new random token for an operator's settlement ({@link
   *     IdempotencyGate#resolveUnknown}) to take a key over with: a UUID of version 8 (RFC 9562's
   *     for custom layouts), which {@link #isSettlement()} tells apart from a call's
   */
  public static LeaseToken settlement() {
    return random(SETTLEMENT_VERSION);
  }

  private static LeaseToken random(int version) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long msb = (random.nextLong() & ~0xF000L) | ((long) version << 12);
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new LeaseToken(new UUID(msb, lsb).toString());
  }

  /**
   * @return true for a token an operator's settlement minted ({@link #settlement()}): no action
   *     ever runs under it, so a row it holds in progress is decided as fenced as unknown, and a
   *     result stored under it was written by the settlement, not by the attempt that ran
   */
  public boolean isSettlement() {
    return value.length() == 36 && value.charAt(VERSION_AT) == (char) ('0' + SETTLEMENT_VERSION);
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
