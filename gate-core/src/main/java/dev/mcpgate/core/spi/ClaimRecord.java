package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;
import java.time.Instant;

/**
 * One stored claim row, as a store returns it. All times are the store's clock.
 *
 * @param id (tenant, tool, key)
 * @param argsHash the versioned canonical hash of the arguments of the attempt that wrote the row
 * @param state the row's state
 * @param token the lease token of the attempt that holds (or completed) the row
 * @param attempt 1 for the first attempt; one more for each lease takeover
 * @param createdAt when the current attempt claimed the row
 * @param leaseExpiresAt when the current attempt's lease ends (another may take over after it)
 * @param expiresAt when the row expires: after it, the key is free again and may be purged
 * @param completedAt when the result was stored; null unless {@link ClaimState#COMPLETED}
 * @param result the stored result; null unless {@link ClaimState#COMPLETED}
 */
public record ClaimRecord(
    ClaimId id,
    String argsHash,
    ClaimState state,
    LeaseToken token,
    int attempt,
    Instant createdAt,
    Instant leaseExpiresAt,
    Instant expiresAt,
    Instant completedAt,
    StoredResult result) {

  /**
   * @throws NullPointerException if a required component is null
   */
  public ClaimRecord {
    Checks.notNull(id, "id");
    Checks.notNull(argsHash, "argsHash");
    Checks.notNull(state, "state");
    Checks.notNull(token, "token");
    Checks.notNull(createdAt, "createdAt");
    Checks.notNull(leaseExpiresAt, "leaseExpiresAt");
    Checks.notNull(expiresAt, "expiresAt");
    if (state == ClaimState.COMPLETED && result == null) {
      throw new IllegalArgumentException("a COMPLETED record needs a result: " + id);
    }
  }

  /**
   * @return true when this attempt took over an earlier attempt's lease
   */
  public boolean isTakeover() {
    return attempt > 1;
  }
}
