package dev.mcpgate.dynamodb;

import static dev.mcpgate.dynamodb.ClaimItems.EXPIRES;
import static dev.mcpgate.dynamodb.ClaimItems.LEASE;
import static dev.mcpgate.dynamodb.ClaimItems.n;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimState;

/**
 * The writes that extend a lease. DynamoDB's update expressions cannot raise an attribute only when
 * it is lower, so an extension is one of two disjoint conditional {@code UpdateItem}s, each
 * conditional on the token and on {@code state = IN_PROGRESS}, so that neither ever touches a
 * completed or unknown item (a renewal still in flight when the attempt completes cannot cut the
 * completed item's retention down to a lease):
 *
 * <ul>
 *   <li>{@link #setLease}: the item's expiry is already at or past the new lease end (the everyday
 *       case, retention being longer than a lease): sets the lease only;
 *   <li>{@link #setLeaseAndRaiseExpiry}: the expiry is before the new lease end (a lease longer
 *       than the retention): sets the lease, the expiry and the TTL together.
 * </ul>
 *
 * The expiry is never lowered: each write's condition compares it with the new lease end on the
 * server, never with a value read earlier.
 */
final class LeaseWrites {
  private final ClaimItems items;

  LeaseWrites(ClaimItems items) {
    this.items = items;
  }

  /**
   * Extends the lease to {@code leaseEndMs}: {@link #setLease}, else {@link
   * #setLeaseAndRaiseExpiry}, else {@link #setLease} once more (an expiry raised between the two by
   * another extension with the same token). One request in the everyday case, two when the expiry
   * must move, three when the token no longer holds an in-progress item.
   *
   * @return false if the token no longer holds an in-progress item: nothing was written
   */
  boolean extend(Requests requests, ClaimId id, LeaseToken token, long leaseEndMs) {
    return setLease(requests, id, token, leaseEndMs)
        || setLeaseAndRaiseExpiry(requests, id, token, leaseEndMs)
        || setLease(requests, id, token, leaseEndMs);
  }

  /** Sets the lease end, only on an in-progress item held by the token that outlives it. */
  boolean setLease(Requests requests, ClaimId id, LeaseToken token, long leaseEndMs) {
    Expression e = new Expression();
    String condition =
        Conditions.heldBy(e, token, "=", ClaimState.IN_PROGRESS)
            + " AND "
            + e.name(EXPIRES)
            + " >= "
            + e.value(n(leaseEndMs));
    return requests.update(
            items.key(id),
            e,
            "SET " + e.equals(LEASE, n(leaseEndMs)),
            condition,
            "extend the lease of " + id)
        != null;
  }

  /**
   * Sets the lease end and raises the expiry (and TTL) to it, only on an in-progress item held by
   * the token whose expiry is before it.
   */
  boolean setLeaseAndRaiseExpiry(Requests requests, ClaimId id, LeaseToken token, long leaseEndMs) {
    Expression e = new Expression();
    String condition =
        Conditions.heldBy(e, token, "=", ClaimState.IN_PROGRESS)
            + " AND "
            + e.name(EXPIRES)
            + " < "
            + e.value(n(leaseEndMs));
    String update =
        "SET "
            + e.equals(LEASE, n(leaseEndMs))
            + ", "
            + e.equals(EXPIRES, n(leaseEndMs))
            + ", "
            + e.equals(items.ttlAttribute, n(ClaimItems.ttlSeconds(leaseEndMs)));
    return requests.update(
            items.key(id), e, update, condition, "extend the lease and expiry of " + id)
        != null;
  }
}
