package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;

/**
 * A lease that a running attempt holds: the claim and the token that holds its row. The gate renews
 * many of them at once with {@link IdempotencyStore#extendLeases}.
 *
 * @param id (tenant, tool, key)
 * @param token the attempt's lease token
 */
public record HeldLease(ClaimId id, LeaseToken token) {

  /**
   * @throws NullPointerException if a component is null
   */
  public HeldLease {
    Checks.notNull(id, "id");
    Checks.notNull(token, "token");
  }
}
