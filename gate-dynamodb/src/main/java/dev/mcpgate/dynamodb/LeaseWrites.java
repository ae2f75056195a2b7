package dev.mcpgate.dynamodb;

import static dev.mcpgate.dynamodb.ClaimItems.EXPIRES;
import static dev.mcpgate.dynamodb.ClaimItems.LEASE;
import static dev.mcpgate.dynamodb.ClaimItems.STATE;
import static dev.mcpgate.dynamodb.ClaimItems.TOKEN;
import static dev.mcpgate.dynamodb.ClaimItems.n;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

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
 *
 * <p>The gate's renewals ({@link #extendForward}) also never move a lease back: their writes are
 * conditional on the lease ending before the new end as well. A lease end is computed from this
 * process's clock when the renewal is sent (DynamoDB has no clock in expressions), so a renewal the
 * gate gave up on that lands after a later one carries the earlier end; it finds the lease already
 * past it and changes nothing, and the lease counts as held.
 */
final class LeaseWrites {
  /** The most writes one renewal of one lease makes while the item changes under it. */
  private static final int ROUNDS = 4;

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
    return requests.updateTried(
            items.key(id),
            e,
            "SET " + e.equals(LEASE, n(leaseEndMs)),
            held(e, token, false, leaseEndMs, false),
            "extend the lease of " + id)
        == Requests.Outcome.WRITTEN;
  }

  /**
   * Sets the lease end and raises the expiry (and TTL) to it, only on an in-progress item held by
   * the token whose expiry is before it.
   */
  boolean setLeaseAndRaiseExpiry(Requests requests, ClaimId id, LeaseToken token, long leaseEndMs) {
    Expression e = new Expression();
    return requests.updateTried(
            items.key(id),
            e,
            raise(e, leaseEndMs),
            held(e, token, true, leaseEndMs, false),
            "extend the lease and expiry of " + id)
        == Requests.Outcome.WRITTEN;
  }

  /**
   * The renewals' extension: moves the lease end forward to {@code leaseEndMs}, never back, within
   * {@code within}. The everyday write ({@link #setLease}'s, also conditional on {@code
   * lease_expires_at < :end}) goes first. When its condition fails, the item as it was (returned by
   * the failed write where the server does, else read strongly consistent after the other write was
   * tried, as {@link #extend} would) tells why: no longer held, already ending at or after the new
   * end (held: nothing to write), or an expiry to raise ({@link #setLeaseAndRaiseExpiry}'s write,
   * with the same extra condition). One request in the everyday case.
   *
   * @return true if the token holds an in-progress item whose lease now ends at or after {@code
   *     leaseEndMs}; false if it no longer holds an in-progress item: nothing was written
   * @throws StoreUnavailableException if a request failed or timed out, {@code within} ran out, or
   *     the item changed under every write: whether the lease was extended is then not known
   */
  boolean extendForward(
      Requests requests, ClaimId id, LeaseToken token, long leaseEndMs, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    boolean raise = false;
    for (int round = 0; round < ROUNDS; round++) {
      Expression e = new Expression();
      Requests.Written w =
          requests.updateWithin(
              items.key(id),
              e,
              raise ? raise(e, leaseEndMs) : "SET " + e.equals(LEASE, n(leaseEndMs)),
              held(e, token, raise, leaseEndMs, true),
              "extend the lease of " + id,
              left(deadline, id, within));
      if (w.written()) {
        return true;
      }
      Map<String, AttributeValue> old = w.old();
      if (old == null) {
        if (round == 0) {
          raise = true; // a server that does not return the item: the other write, then a read
          continue;
        }
        old = requests.getWithin(items.key(id), "read " + id, left(deadline, id, within));
      }
      if (old == null
          || !old.containsKey(TOKEN)
          || !token.value().equals(old.get(TOKEN).s())
          || !old.containsKey(STATE)
          || !ClaimState.IN_PROGRESS.name().equals(old.get(STATE).s())) {
        return false;
      }
      if (ClaimItems.number(old, LEASE) >= leaseEndMs) {
        return true; // a later renewal got there first: held, and not moved back
      }
      raise = ClaimItems.number(old, EXPIRES) < leaseEndMs;
    }
    throw new StoreUnavailableException(
        "the item of "
            + id
            + " changed under each of "
            + ROUNDS
            + " writes extending its lease; tried again next renewal",
        null);
  }

  /**
   * The condition of an extension: held by the token, in progress, its expiry before ({@code
   * raise}) or at or past the new end, and, for a renewal ({@code forward}), its lease before it.
   */
  private static String held(
      Expression e, LeaseToken token, boolean raise, long leaseEndMs, boolean forward) {
    String condition =
        Conditions.heldBy(e, token, "=", ClaimState.IN_PROGRESS)
            + " AND "
            + e.name(EXPIRES)
            + (raise ? " < " : " >= ")
            + e.value(n(leaseEndMs));
    if (forward) {
      condition += " AND " + e.name(LEASE) + " < " + e.value(n(leaseEndMs));
    }
    return condition;
  }

  /** The update that sets the lease end and raises the expiry and the TTL to it. */
  private String raise(Expression e, long leaseEndMs) {
    return "SET "
        + e.equals(LEASE, n(leaseEndMs))
        + ", "
        + e.equals(EXPIRES, n(leaseEndMs))
        + ", "
        + e.equals(items.ttlAttribute, n(items.ttlSeconds(leaseEndMs)));
  }

  private static Duration left(long deadlineNanos, ClaimId id, Duration within) {
    long left = deadlineNanos - System.nanoTime();
    if (left <= 0) {
      throw new StoreUnavailableException(
          "the renewal of the lease of " + id + " ran out of its " + within.toMillis() + " ms",
          null);
    }
    return Duration.ofNanos(left);
  }
}
