package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

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
   * The one exhaustive switch over the three outcomes, for Java 17 (which has no pattern switch
   * over sealed types): each outcome calls the function of its own case. A fourth case would add a
   * parameter here, so every caller that does not handle it stops compiling.
   *
   * @param acquired what to make of an {@link Acquired} claim
   * @param replayed what to make of a {@link Replayed} one
   * @param refused what to make of a {@link Refused} one
   * @return what the function of this outcome's case made of it
   */
  <R> R fold(
      Function<? super Acquired, ? extends R> acquired,
      Function<? super Replayed, ? extends R> replayed,
      Function<? super Refused, ? extends R> refused);

  /**
   * The caller now holds the key and must run the action, then {@linkplain IdempotencyGate#complete
   * complete} or {@linkplain IdempotencyGate#release release}.
   *
   * @param id the claim
   * @param token this attempt's fencing token
   * @param attempt 1 for a first attempt, more after lease takeovers
   * @param claimedAt when the claim was written (store clock)
   * @param leaseExpiresAt when the lease ends unless extended (store clock), as the claim wrote it:
   *     the gate extends a late claim's lease before it returns it
   * @param argsHash the versioned canonical hash of the arguments the key was claimed with; null
   *     only on a claim built without one (by the constructor without it)
   */
  record Acquired(
      ClaimId id,
      LeaseToken token,
      int attempt,
      Instant claimedAt,
      Instant leaseExpiresAt,
      String argsHash)
      implements ClaimOutcome {

    /** Without the arguments' hash, as a test builds a claim of its own. */
    public Acquired(
        ClaimId id, LeaseToken token, int attempt, Instant claimedAt, Instant leaseExpiresAt) {
      this(id, token, attempt, claimedAt, leaseExpiresAt, null);
    }

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

    /**
     * @return {@code acquired.apply(this)}
     */
    @Override
    public <R> R fold(
        Function<? super Acquired, ? extends R> acquired,
        Function<? super Replayed, ? extends R> replayed,
        Function<? super Refused, ? extends R> refused) {
      return acquired.apply(this);
    }
  }

  /**
   * The call completed before: its stored result is returned and nothing runs.
   *
   * @param id the claim
   * @param result the stored result (a value or a stored failure), already decoded by the gate's
   *     codec; from {@link IdempotencyGate#claim} its bytes are the caller's own copy
   * @param attempt the attempt that produced the result (1, or more after takeovers)
   * @param firstExecutedAt when the attempt that produced the result claimed the key
   * @param completedAt when that result was stored
   * @param settled true when the result was stored under an operator's settlement that took the key
   *     over from an attempt whose lease had run out ({@link IdempotencyGate#resolveUnknown}), by
   *     its verdict or by a call's reconciler: then {@code attempt} and {@code firstExecutedAt} are
   *     the takeover's, and the effect ran in an earlier attempt, at a time not kept
   */
  record Replayed(
      ClaimId id,
      StoredResult result,
      int attempt,
      Instant firstExecutedAt,
      Instant completedAt,
      boolean settled)
      implements ClaimOutcome {

    /**
     * @return {@code replayed.apply(this)}
     */
    @Override
    public <R> R fold(
        Function<? super Acquired, ? extends R> acquired,
        Function<? super Replayed, ? extends R> replayed,
        Function<? super Refused, ? extends R> refused) {
      return replayed.apply(this);
    }
  }

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

    /**
     * @return {@code refused.apply(this)}
     */
    @Override
    public <R> R fold(
        Function<? super Acquired, ? extends R> acquired,
        Function<? super Replayed, ? extends R> replayed,
        Function<? super Refused, ? extends R> refused) {
      return refused.apply(this);
    }
  }
}
