package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.CommitOutcomeUnknownException;
import dev.mcpgate.core.LeaseToken;
import java.time.Duration;

/**
 * A unit of work in which the claim itself is written, for effects in the store's own database: the
 * claim, the action's writes and the completion are one transaction and one commit. A concurrent
 * duplicate waits on the key's unique index until that transaction ends, then replays its result
 * (committed) or runs (rolled back); a crash rolls everything back, so the key is free again at
 * once and no lease is needed.
 *
 * @param <R> the resource the action works with (a JDBC connection)
 */
public interface ClaimingScope<R> extends TransactionScope<R> {

  /**
   * Claims inside the resource's transaction, by the rule of {@link IdempotencyStore#claim}.
   *
   * @param resource a resource from {@link #begin()}
   * @param request what to claim
   * @param wait how long to wait for another transaction that holds an uncommitted claim of the
   *     same key (stores may round it up to their own granularity)
   * @return acquired (the row is written, uncommitted, in this transaction) or existing (a
   *     committed row, unchanged)
   * @throws dev.mcpgate.core.ClaimBusyException if the other transaction did not end in time
   * @throws dev.mcpgate.core.StoreUnavailableException if the claim could not be written
   */
  ClaimAttempt claim(R resource, ClaimRequest request, Duration wait);

  /**
   * Writes the token-checked completion and commits the transaction, in as few round trips as the
   * store can: a store may send the completion and the {@code COMMIT} together, so that a claim in
   * single-commit mode costs one round trip beyond the action's own. The default completes, then
   * commits.
   *
   * @param resource a resource from {@link #begin()}, holding this attempt's uncommitted claim
   * @param id the claim
   * @param token this attempt's lease token
   * @param result the encoded result
   * @param retention how long the result is replayed
   * @return true when the completion was written and committed; false when no row held by {@code
   *     token} was found: nothing was committed, and the caller rolls back
   * @throws dev.mcpgate.core.CommitOutcomeUnknownException if the commit was sent and its answer
   *     was lost: whether the transaction committed is not known
   * @throws dev.mcpgate.core.StoreUnavailableException if the completion or the commit failed and
   *     nothing was committed (the caller rolls back)
   */
  default boolean completeAndCommit(
      R resource, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    if (!complete(resource, id, token, result, retention)) {
      return false;
    }
    try {
      commit(resource);
    } catch (RuntimeException e) {
      throw new CommitOutcomeUnknownException(
          "the commit of " + id + " failed: whether it committed is not known", e);
    }
    return true;
  }
}
