package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;

/**
 * A claim's answer is about the key it asked for, or the call fails closed. A table whose key
 * columns compare without case, accents or trailing spaces (a collation, {@code CHAR}, {@code
 * citext}), or a connection whose character set loses characters (Connector/J with {@code
 * characterEncoding=latin1}), files two keys, or two tenants, under one row: the second call would
 * be told a replay of a result it never produced, or another tenant's. The row the store answers
 * with names the key it holds; one that is not the key asked for is refused before anything runs.
 */
final class ClaimIdentity {
  private ClaimIdentity() {}

  /**
   * @param release releases a claim the request acquired under the other key (its own token), run
   *     only for an acquired one; a failure of it is carried by the call's failure
   * @return {@code attempt}, when its row is the requested key's
   * @throws CallFailure naming both keys when it is not: nothing ran
   */
  static ClaimAttempt checked(ClaimRequest request, ClaimAttempt attempt, Runnable release) {
    ClaimId asked = request.id();
    ClaimId found = attempt.record().id();
    if (asked.equals(found)) {
      return attempt;
    }
    CallFailure failure = refused(asked, found);
    if (attempt instanceof ClaimAttempt.Acquired) {
      try {
        release.run();
      } catch (RuntimeException e) {
        failure.addSuppressed(e); // its lease runs out; nothing runs under it meanwhile
      }
    }
    throw failure;
  }

  private static CallFailure refused(ClaimId asked, ClaimId found) {
    return CallFailure.unclaimed(
        "the store answered the claim of "
            + asked
            + " with the row of "
            + found
            + ": its table or connection does not keep tenant, tool and key as sent (a"
            + " case-, accent- or space-insensitive collation, CHAR or citext key columns, or a"
            + " connection character set that loses characters), so two keys would share one"
            + " claim; the action did not run; a retry fails the same way until the table or"
            + " connection is fixed (docs/stores.md)",
        null);
  }
}
