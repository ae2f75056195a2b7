package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.time.Instant;

/**
 * What one claim decided, as a value: the claim is
 *
 * <ul>
 *   <li>{@link Acquired}: this caller holds the key; run the action, then complete or release (a
 *       takeover of an earlier attempt's expired lease is an acquired claim with {@link
 *       Acquired#isTakeover()});
 *   <li>{@link Replayed}: the call completed before; return the stored result, nothing runs;
 *   <li>{@link Refused}: nothing runs, for a {@link RefusalReason}.
 * </ul>
 */
public sealed interface ClaimOutcome {

  /**
   * @return the claim's identity
   */
  ClaimId id();

  /**
   * The caller now holds the key and must run the action, then {@linkplain IdempotencyGate#complete
   * complete} or {@linkplain IdempotencyGate#release release}.
   *
   * @param id the claim
   * @param token this attempt's fencing token
   * @param attempt 1 for a first attempt, more after lease takeovers
   * @param claimedAt when the claim was written (store clock)
   * @param leaseExpiresAt when the lease ends unless extended (store clock)
   */
  record Acquired(
      ClaimId id, LeaseToken token, int attempt, Instant claimedAt, Instant leaseExpiresAt)
      implements ClaimOutcome {
    /**
     * @return true when this attempt took over an expired lease of an earlier attempt
     */
    public boolean isTakeover() {
      return attempt > 1;
    }

    /**
     * @return a stable key derived from (tenant, tool, key), the same on every attempt, for the
     *     action to forward to downstream systems (a payment provider's idempotency key, a mail
     *     message id); see {@link DownstreamKey}
     */
    public String downstreamKey() {
      return DownstreamKey.of(id);
    }
  }

  /**
   * The call completed before: its stored result is returned and nothing runs.
   *
   * @param id the claim
   * @param result the stored result (a value or a stored failure), already decoded by the gate's
   *     codec
   * @param attempt the attempt that produced the result (1, or more after takeovers)
   * @param firstExecutedAt when the attempt that produced the result claimed the key
   * @param completedAt when that result was stored
   */
  record Replayed(
      ClaimId id, StoredResult result, int attempt, Instant firstExecutedAt, Instant completedAt)
      implements ClaimOutcome {}

  /**
   * The claim was refused: nothing runs.
   *
   * @param id the claim
   * @param reason why
   * @param retryAfter when a retry with the same key may succeed; zero when it never will
   * @param message a sentence for Java callers and operators (the MCP adapter writes its own
   *     sentences for models)
   */
  record Refused(ClaimId id, RefusalReason reason, Duration retryAfter, String message)
      implements ClaimOutcome {
    /**
     * @throws NullPointerException if a component is null
     */
    public Refused {
      Checks.notNull(id, "id");
      Checks.notNull(reason, "reason");
      Checks.notNegative(retryAfter, "retryAfter");
      Checks.notNull(message, "message");
    }
  }
}
