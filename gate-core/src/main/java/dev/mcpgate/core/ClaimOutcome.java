package dev.mcpgate.core;

import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.time.Instant;

/**
 * What one claim decided, as a value, one of:
 * <ul>
 *   <li>{@link Fresh}: run the action, then complete or release;</li>
 *   <li>{@link Replay}: return the stored result; nothing runs;</li>
 *   <li>{@link Conflict}: refuse; the same key came with other arguments;</li>
 *   <li>{@link InFlight}: refuse or wait; another attempt runs the call now;</li>
 *   <li>{@link OutcomeUnknown}: refuse; an earlier attempt's outcome is unknown.</li>
 * </ul>
 */
public sealed interface ClaimOutcome {

  /** @return the claim's identity */
  ClaimId id();

  /**
   * The caller now holds the key and must run the action, then
   * {@linkplain IdempotencyGate#complete complete} or {@linkplain IdempotencyGate#release release}.
   *
   * @param id the claim
   * @param token this attempt's fencing token
   * @param attempt 1 for a first attempt, more after lease takeovers
   * @param claimedAt when the claim was written (store clock)
   * @param leaseExpiresAt when the lease ends unless extended (store clock)
   */
  record Fresh(ClaimId id, LeaseToken token, int attempt, Instant claimedAt,
      Instant leaseExpiresAt) implements ClaimOutcome {
    /** @return true when this attempt took over an expired lease of an earlier attempt */
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
   * @param result the stored result, already decoded by the gate's codec
   * @param firstExecutedAt when the attempt that produced the result claimed the key
   * @param completedAt when that result was stored
   */
  record Replay(ClaimId id, StoredResult result, Instant firstExecutedAt, Instant completedAt)
      implements ClaimOutcome {}

  /**
   * The key was used with different arguments: refused, nothing runs.
   *
   * @param id the claim
   * @param storedHash the argument hash stored with the key
   * @param requestHash the argument hash of this call
   */
  record Conflict(ClaimId id, String storedHash, String requestHash) implements ClaimOutcome {}

  /**
   * Another attempt is running the same call now, with a live lease.
   *
   * @param id the claim
   * @param retryAfter a suggested wait before retrying (at most the remaining lease)
   */
  record InFlight(ClaimId id, Duration retryAfter) implements ClaimOutcome {}

  /**
   * An earlier attempt could not tell whether its effect happened. The key stays fenced until the
   * lease expires; then a retry takes over.
   *
   * @param id the claim
   * @param retryAfter the time until the lease expires
   */
  record OutcomeUnknown(ClaimId id, Duration retryAfter) implements ClaimOutcome {}
}
