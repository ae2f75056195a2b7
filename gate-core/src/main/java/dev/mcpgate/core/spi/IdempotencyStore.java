package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where claims live. A store is small on purpose: it makes one atomic conditional write per claim
 * and token-checked writes after it, and returns values. Hashing, policies, codecs, events and
 * waiting live in the gate, so every store behaves alike; the store contract suite, {@code
 * dev.mcpgate.store.tck.IdempotencyStoreContract} in the artifact {@code gate-store-tck}, says
 * exactly how (a store's author extends it in test scope; see docs/stores.md).
 *
 * <p>All expiry and lease decisions use the store's clock ({@link #now()}), never the caller's.
 * Implementations must be thread-safe. Infrastructure failures are reported by throwing {@link
 * dev.mcpgate.core.StoreUnavailableException} (any other runtime exception is wrapped in one by the
 * gate).
 */
public interface IdempotencyStore {

  /**
   * Claims (tenant, tool, key) in one atomic conditional write, never read-then-write. The write
   * succeeds, and the row becomes {@code IN_PROGRESS} with the request's token, exactly when:
   *
   * <ul>
   *   <li>there is no row, or the row has expired ({@code expiresAt <= now}): attempt 1; or
   *   <li>the row is {@code IN_PROGRESS}, its lease has expired ({@code leaseExpiresAt <= now}) and
   *       its argument hash equals the request's: a takeover, attempt + 1.
   * </ul>
   *
   * An {@code UNKNOWN} row is never taken over: it stays fenced until it expires (see {@link
   * #markUnknown}) or someone who knows completes or releases it with its token. Otherwise the
   * existing row is returned unchanged.
   *
   * <p>A request {@linkplain ClaimRequest#replacing replacing} a token (an operator's settlement)
   * is written only over a row that holds that token and may be taken as above, in the same atomic
   * write; over no row it writes nothing and answers {@link ClaimAttempt.Absent}, and over any
   * other row it answers existing.
   *
   * @param request what to claim
   * @return acquired (with the new row), existing (with the row found), or absent (no row, for a
   *     request replacing a token)
   */
  ClaimAttempt claim(ClaimRequest request);

  /**
   * Stores the result and marks the row {@code COMPLETED}, expiring {@code retention} after now,
   * only if the row is still held by {@code token} and not already completed.
   *
   * @return false if the token no longer holds the row (the lease was taken over, or the row is
   *     gone): nothing was written
   * @throws dev.mcpgate.core.ResultTooLargeException if the store itself cannot hold the result
   */
  boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention);

  /**
   * Deletes the row, only if it is held by {@code token} and not completed.
   *
   * @return false if the token no longer holds the row: nothing was deleted
   */
  boolean release(ClaimId id, LeaseToken token);

  /**
   * Extends the lease to {@code lease} from now (and the row's expiry with it, if needed), only if
   * the row is {@code IN_PROGRESS} and held by {@code token}.
   *
   * @return false if the token no longer holds an in-progress row
   */
  boolean extendLease(ClaimId id, LeaseToken token, Duration lease);

  /**
   * Extends many leases at once, each by the rule of {@link #extendLease}: the gate's renewals of
   * every running attempt of this store in one call per renewal period, so that their cost does not
   * grow with the calls in flight. A store does it in as few round trips as it can (one statement,
   * one script), on a path of its own that the tools cannot exhaust (not the pool the tools use),
   * and answers within {@code within}: every wait it makes (opening a connection, the network, a
   * row lock, a slow node) is bounded by it. A lease it could not settle in that time is
   * {@linkplain ExtendedLeases#undecided() undecided}, never reported lost. The gate stops waiting
   * at {@code within} anyway and tries again at once, possibly while this call is still running: a
   * store must take concurrent calls, and a call that runs late must not hold up the next one (a
   * connection that timed out is not used again). The default extends the leases one by one, as
   * long as time is left.
   *
   * @param leases the leases to extend; none twice
   * @param lease the new lease from the store's now, for each of them
   * @param within how long the call may take: the gate's deadline for one renewal try
   * @return which leases were extended, which are undecided; any other is no longer held (its lease
   *     was taken over, or the row is gone or settled)
   * @throws RuntimeException if the store could not be asked: every lease is then undecided
   */
  default ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    Set<LeaseToken> extended = new HashSet<>();
    Set<LeaseToken> undecided = new HashSet<>();
    for (HeldLease held : leases) {
      if (!undecided.isEmpty() || System.nanoTime() - deadline >= 0) {
        undecided.add(held.token()); // out of time, or the store failed: tried again
        continue;
      }
      try {
        if (extendLease(held.id(), held.token(), lease)) {
          extended.add(held.token());
        }
      } catch (RuntimeException e) {
        if (extended.isEmpty() && undecided.isEmpty()) {
          throw e;
        }
        undecided.add(held.token());
      }
    }
    return new ExtendedLeases(extended, undecided);
  }

  /**
   * Marks the row {@code UNKNOWN} (outcome unknown), only if it is {@code IN_PROGRESS} and held by
   * {@code token}, and sets it to expire {@code fence} after now. Until then the key is fenced: no
   * claim takes it over, lease or not; a reconciler or an operator settles it with the token
   * ({@link #complete} or {@link #release}), or it expires and the key is free again.
   *
   * @param fence how long the key stays fenced, from the store's now
   * @return false if the token no longer holds an in-progress row
   */
  boolean markUnknown(ClaimId id, LeaseToken token, Duration fence);

  /**
   * Reads the row for operators and tools, expired or not.
   *
   * @return the row, or empty if there is none
   */
  Optional<ClaimRecord> find(ClaimId id);

  /**
   * Deletes at most {@code limit} rows whose {@code expiresAt <= now}. A row taken over
   * concurrently is never deleted.
   *
   * @param limit the most rows to delete in this call, at least 1
   * @return how many rows were deleted
   */
  int purgeExpired(int limit);

  /**
   * @return the store's clock, the one its expiry and lease decisions use
   */
  Instant now();
}
