package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import java.time.Duration;

/**
 * A unit of work that an action and its completion share, for exactly-once effects in the store's
 * own database: the gate begins it, hands its resource (a JDBC connection) to the action, writes
 * the token-checked completion through it, and commits only if the completion held. If the lease
 * was lost, the whole unit rolls back.
 *
 * @param <R> the resource the action works with
 */
public interface TransactionScope<R> {

  /**
   * @return a new resource with a transaction open on it
   * @throws dev.mcpgate.core.StoreUnavailableException if none can be had
   */
  R begin();

  /** Like {@link IdempotencyStore#complete}, but inside the resource's transaction. */
  boolean complete(
      R resource, ClaimId id, LeaseToken token, StoredResult result, Duration retention);

  /** Like {@link IdempotencyStore#release}, but inside the resource's transaction. */
  boolean release(R resource, ClaimId id, LeaseToken token);

  /** Commits the resource's transaction. */
  void commit(R resource);

  /** Rolls the resource's transaction back; must not throw for an already broken resource. */
  void rollback(R resource);

  /** Gives the resource back (for a connection: closes it). */
  void close(R resource);
}
