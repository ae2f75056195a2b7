package dev.mcpgate.mcp;

import dev.mcpgate.core.OutcomeUnknownException;

/**
 * How the transactions of one gated tool method's call ended, and what that makes of what the
 * method returned or threw: for an adapter of a framework whose declarative transactions begin and
 * end inside the gated call (Spring's {@code @Transactional}, Jakarta's), which the method's return
 * or exception does not tell. A transaction commits when the method throws a checked exception (or
 * one its rollback rule spares), and rolls back without a word when the method marked it
 * rollback-only and returned. A retry advice between the gate and the transaction gives each
 * attempt a transaction of its own: a return is read by the latest one's end, a failure by what any
 * of them kept, since a later attempt's rollback does not undo what an earlier one committed.
 *
 * <p>The adapter tells {@link #begun} as it registers for a transaction's end, {@link #ended} as
 * that end arrives (on any thread), and asks {@link #returned} or {@link #threw} as the method
 * finishes. One instance per gated call.
 */
public final class TransactionEnds {

  /** How one transaction ended. */
  public enum End {
    /** It committed: what the method wrote in it is kept. */
    COMMITTED,
    /** It rolled back: what the method wrote in it is not kept. */
    ROLLED_BACK,
    /** It ended in a state not known (a commit that failed): what the method wrote may be kept. */
    UNKNOWN
  }

  private int begun;

  /** How the latest transaction begun ended; null while it is open, or before any began. */
  private End last;

  /** COMMITTED once any committed, else UNKNOWN once any ended so, else null. */
  private End kept;

  /** What {@link #kept} was before the latest end arrived: the earlier transactions'. */
  private End earlier;

  /**
   * A transaction of the method began (the adapter registered for its end).
   *
   * @return its number, to tell its end with
   */
  public synchronized int begun() {
    last = null;
    return ++begun;
  }

  /**
   * The transaction {@code number} ended so.
   *
   * @param number what {@link #begun} answered for it
   */
  public synchronized void ended(int number, End how) {
    earlier = kept;
    if (number == begun) {
      last = how;
    }
    if (how != End.ROLLED_BACK && kept != End.COMMITTED) {
      kept = how;
    }
  }

  /**
   * The method returned.
   *
   * @param ownError whether it returned an error result of its own, which says it failed
   * @return null when what it returned may be stored as its result; else the unknown outcome that
   *     keeps its key fenced: its latest transaction was rolled back (unless it answered an error
   *     of its own) or ended in a state not known, or it answered an error of its own after an
   *     earlier attempt's transaction committed (its error speaks for the last attempt, not for
   *     that)
   */
  public synchronized OutcomeUnknownException returned(boolean ownError) {
    if (ownError && earlier != null) {
      return new OutcomeUnknownException(
          "the tool answered an error result of its own, but a transaction of an earlier attempt "
              + what(earlier));
    }
    if (last == End.ROLLED_BACK && !ownError) {
      return new OutcomeUnknownException(
          "the tool returned, but its transaction was rolled back: what it wrote in it was not"
              + " kept, and what it did elsewhere (another transaction, another system) may have"
              + " taken effect");
    }
    if (last == End.UNKNOWN) {
      return new OutcomeUnknownException(
          "the tool returned, but its transaction " + what(End.UNKNOWN));
    }
    return null;
  }

  /**
   * The method threw {@code thrown}.
   *
   * @return null when none of its transactions committed or may have (what it threw is read as the
   *     gate's policy says); else the unknown outcome, caused by {@code thrown}, that keeps its key
   *     fenced: what it wrote is kept, and freeing the key would write it again
   */
  public synchronized OutcomeUnknownException threw(Throwable thrown) {
    if (kept == null) {
      return null;
    }
    return new OutcomeUnknownException(
        "the tool threw "
            + thrown
            + (last != kept
                ? ", but a transaction of an earlier attempt "
                : " after its transaction ")
            + what(kept),
        thrown);
  }

  private static String what(End end) {
    return end == End.COMMITTED
        ? "committed: what it wrote is kept"
        : "ended in a state not known: what it wrote may be kept";
  }
}
