package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;
import java.time.Duration;

/**
 * What the gate asks a store to claim, atomically.
 *
 * @param id (tenant, tool, key)
 * @param argsHash the versioned canonical hash of the arguments
 * @param token the new attempt's lease token
 * @param lease how long the new attempt holds the key before another may take over
 * @param retention how long the row lives (at least the lease); completion sets it anew
 */
public record ClaimRequest(
    ClaimId id, String argsHash, LeaseToken token, Duration lease, Duration retention) {

  /**
   * @throws NullPointerException if a component is null
   */
  public ClaimRequest {
    Checks.notNull(id, "id");
    Checks.notNull(argsHash, "argsHash");
    Checks.notNull(token, "token");
    Checks.positiveMillis(lease, "lease");
    Checks.positiveMillis(retention, "retention");
  }
}
