package dev.mcpgate.core.spi;

import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;
import java.util.HashSet;
import java.util.Set;

/**
 * What one {@link IdempotencyStore#extendLeases} call did with each lease it was given: extended,
 * undecided, or (a token in neither set) no longer held.
 *
 * <p>A lease is undecided when the store could not settle it within the call's time: its row was
 * locked by another transaction, the node that holds it was slow, or its own request failed while
 * the others' did not. The store has not seen it taken over, so the gate tries it again at once, as
 * it does every lease of a call that failed as a whole; it is never taken as lost.
 *
 * @param extended the tokens whose leases were extended to the new end
 * @param undecided the tokens whose leases were neither extended nor found lost in this call
 */
public record ExtendedLeases(Set<LeaseToken> extended, Set<LeaseToken> undecided) {

  /**
   * Copies both sets.
   *
   * @throws NullPointerException if a set is null
   * @throws IllegalArgumentException if a token is in both sets
   */
  public ExtendedLeases {
    extended = Set.copyOf(Checks.notNull(extended, "extended"));
    undecided = Set.copyOf(Checks.notNull(undecided, "undecided"));
    Set<LeaseToken> both = new HashSet<>(extended);
    both.retainAll(undecided);
    if (!both.isEmpty()) {
      throw new IllegalArgumentException(
          "a lease is either extended or undecided, not both: " + both);
    }
  }

  /**
   * @param extended the tokens whose leases were extended; every other one is no longer held
   * @return an answer that leaves nothing undecided
   */
  public static ExtendedLeases of(Set<LeaseToken> extended) {
    return new ExtendedLeases(extended, Set.of());
  }

  /**
   * @param token a lease token the call was given
   * @return true when the lease was found no longer held: neither extended nor undecided
   */
  public boolean isLost(LeaseToken token) {
    return !extended.contains(token) && !undecided.contains(token);
  }
}
