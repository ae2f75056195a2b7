package dev.mcpgate.core.spi;

import java.time.Instant;

/**
 * The one rule that decides whether a claim may write over the row it finds. Every store follows
 * it: the in-memory store and any store that decides in Java call {@link #allowed}; stores that
 * decide in a conditional statement (SQL, a DynamoDB condition expression) write the same rule in
 * their own language, and the contract suite checks their decisions against this class for every
 * row state, argument hash, lease and expiry.
 *
 * <p>A claim may take the key when:
 *
 * <ul>
 *   <li>there is no row, or the row has expired ({@code expiresAt <= now}): a first attempt;
 *   <li>the row is not {@link ClaimState#COMPLETED}, its lease has run out ({@code leaseExpiresAt
 *       <= now}) and its argument hash equals the claim's: a takeover.
 * </ul>
 *
 * A completed row is never taken over before it expires, and a row with other arguments never is.
 */
public final class Takeover {
  private Takeover() {}

  /**
   * @param row the row found, or null when there is none
   * @param argsHash the argument hash of the claim
   * @param now the store's clock
   * @return true when the claim may write over the row
   */
  public static boolean allowed(ClaimRecord row, String argsHash, Instant now) {
    return row == null
        || expired(row, now)
        || (row.state() == ClaimState.IN_PROGRESS
            && !row.leaseExpiresAt().isAfter(now)
            && row.argsHash().equals(argsHash));
  }

  /**
   * The rule with a request's {@linkplain ClaimRequest#replacing token to replace}: when it has
   * one, the row must also hold that token (so there must be a row).
   *
   * @param row the row found, or null when there is none
   * @param request the claim
   * @param now the store's clock
   * @return true when the claim may write over the row (or write where there is none)
   */
  public static boolean allowed(ClaimRecord row, ClaimRequest request, Instant now) {
    return request.replacing() == null
        ? allowed(row, request.argsHash(), now)
        : row != null
            && row.token().equals(request.replacing())
            && allowed(row, request.argsHash(), now);
  }

  /**
   * @param row the row a claim was {@linkplain #allowed allowed} to write over, or null
   * @param now the store's clock
   * @return the attempt number of the new claim: 1 over no row or an expired one, else one more
   *     than the row's (a takeover)
   */
  public static int nextAttempt(ClaimRecord row, Instant now) {
    return row == null || expired(row, now) ? 1 : row.attempt() + 1;
  }

  /**
   * @param row a row
   * @param now the store's clock
   * @return true when the row has expired: its key is free again and the row may be purged
   */
  public static boolean expired(ClaimRecord row, Instant now) {
    return !row.expiresAt().isAfter(now);
  }
}
