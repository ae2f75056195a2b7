package dev.mcpgate.core.spi;

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
}
