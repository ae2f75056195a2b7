package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import java.util.UUID;

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

  /** @return a new random token */
  public static LeaseToken random() {
    return new LeaseToken(UUID.randomUUID().toString());
  }

  @Override
  public String toString() {
    return value;
  }
}
