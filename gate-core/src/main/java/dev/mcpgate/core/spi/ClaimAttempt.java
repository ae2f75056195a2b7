package dev.mcpgate.core.spi;

import java.time.Instant;

/**
 * What a store's atomic claim did. The store decides only whether it could write the row; the gate
 * then classifies an existing row as replay, conflict, in-flight or outcome-unknown.
 */
public sealed interface ClaimAttempt {

  /**
   * @return the row after the claim: the new attempt's row, or the existing one; null when {@link
   *     Absent}
   */
  ClaimRecord record();

  /**
   * @return the store's clock at the claim
   */
  Instant storeNow();

  /**
   * The claim was written: there was no row, the row had expired, or the row was in progress with
   * the same argument hash and an expired lease (a takeover; then {@code record().attempt() > 1}).
   * An {@code UNKNOWN} row is never taken over, whatever its lease: until it expires it is {@link
   * Existing} (see {@link IdempotencyStore#claim} and {@link Takeover}). Its lease may be over by
   * the time the claim answers (a slow store, the store's own retries): the gate counts the lease
   * from just before it sent the claim, and renews it before the action (or before {@code
   * IdempotencyGate.claim} returns it) when too little is left.
   *
   * @param record the new row, holding the request's token
   * @param storeNow the store's clock at the claim
   */
  record Acquired(ClaimRecord record, Instant storeNow) implements ClaimAttempt {}

  /**
   * A live row was there and the claim did not touch it.
   *
   * @param record the existing row, unchanged
   * @param storeNow the store's clock at the claim
   */
  record Existing(ClaimRecord record, Instant storeNow) implements ClaimAttempt {}

  /**
   * There was no row, and the request, {@linkplain ClaimRequest#replacing replacing} a token, wrote
   * none: only a claim that replaces a token is answered so.
   *
   * @param storeNow the store's clock at the claim
   */
  record Absent(Instant storeNow) implements ClaimAttempt {
    /**
     * @return null: there is no row
     */
    @Override
    public ClaimRecord record() {
      return null;
    }
  }
}
