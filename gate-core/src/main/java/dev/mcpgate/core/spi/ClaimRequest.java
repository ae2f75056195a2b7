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
 * @param replacing null for a call's claim; otherwise the token of the one row this claim may write
 *     over: the claim is then written only over a row that holds this token and that {@link
 *     Takeover#allowed} lets it take, and never where there is no row ({@link ClaimAttempt.Absent})
 *     or another token's (an operator's settlement of the attempt it read)
 */
public record ClaimRequest(
    ClaimId id,
    String argsHash,
    LeaseToken token,
    Duration lease,
    Duration retention,
    LeaseToken replacing) {

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

  /** A call's claim: it may write where there is no row, or over any row it may take. */
  public ClaimRequest(
      ClaimId id, String argsHash, LeaseToken token, Duration lease, Duration retention) {
    this(id, argsHash, token, lease, retention, null);
  }
}
