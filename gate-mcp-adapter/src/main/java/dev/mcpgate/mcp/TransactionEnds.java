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
 * that end arrives (on any thread), {@link #attemptBegan} and {@link #attemptEnded} around each
 * attempt of the method where it can see them (innermost), and asks {@link #returned} or {@link
 * #threw} as the method finishes. An interceptor between the two that runs the rest on another
 * thread and stops waiting leaves an attempt running, or its transaction open, when the method
 * answers: what it does there may yet take effect, so either fences. One instance per gated call;
 * or, where a retry advice may sit outside the adapter's (each attempt then seen as an invocation
 * of its own), one per invocation, each made {@linkplain #TransactionEnds(TransactionEnds) after}
 * the call's previous one, whose kept transactions it counts as an earlier attempt's.
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

  /** The ends of the call's previous invocation (a retry's earlier attempt), or null. */
  private final TransactionEnds before;

  private int begun;

  /** How many of the transactions begun have ended. */
  private int ended;

  /** Attempts of the method begun ({@link #attemptBegan}) and not yet finished. */
  private int attempts;

  /** How the latest transaction begun ended; null while it is open, or before any began. */
  private End last;

  /** COMMITTED once any committed, else UNKNOWN once any ended so, else null. */
  private End kept;

  /** What {@link #kept} was before the latest end arrived: the earlier transactions'. */
  private End earlier;

  /** The ends of a gated call's first (or only) invocation of its tool method. */
  public TransactionEnds() {
    this(null);
  }

  /**
   * The ends of a later invocation in the same gated call, made after {@code before}'s: what any of
   * the invocations up to {@code before} kept counts here as an earlier attempt's (a failure or an
   * error result of its own here fences for it); a return is read by this invocation's own.
   *
   * @param before the ends of the call's previous invocation, or null
   */
  public TransactionEnds(TransactionEnds before) {
    this.before = before;
  }

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
    ended++;
    earlier = kept;
    if (number == begun) {
      last = how;
    }
    if (how != End.ROLLED_BACK && kept != End.COMMITTED) {
      kept = how;
    }
  }

  /**
   * An attempt of the method began, on any thread: until it ends, an answer is not the last word.
   */
  public synchronized void attemptBegan() {
    attempts++;
  }

  /** An attempt that {@link #attemptBegan} told of finished (returned or threw). */
  public synchronized void attemptEnded() {
    attempts--;
  }

  /**
   * The method returned.
   *
   * @param ownError whether it returned an error result of its own, which says it failed
   * @return null when what it returned may be stored as its result; else the unknown outcome that
   *     keeps its key fenced: an attempt of it still runs or a transaction of it has not ended (an
   *     interceptor stopped waiting for it on another thread), its latest transaction was rolled
   *     back (unless it answered an error of its own) or ended in a state not known, or it answered
   *     an error of its own after an earlier attempt's transaction committed (its error speaks for
   *     the last attempt, not for that)
   */
  public synchronized OutcomeUnknownException returned(boolean ownError) {
    if (open(this)) {
      return new OutcomeUnknownException(
          "the tool answered while an attempt of it still ran or a transaction of it was open: what"
              + " it did there may yet take effect");
    }
    End earlierKept = stronger(earlier, kept(before));
    if (ownError && earlierKept != null) {
      return new OutcomeUnknownException(
          "the tool answered an error result of its own, but a transaction of an earlier attempt "
              + what(earlierKept));
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
   *     fenced: what it wrote is kept, or may yet be (an attempt of it still runs, or a transaction
   *     of it has not ended), and freeing the key would write it again
   */
  public synchronized OutcomeUnknownException threw(Throwable thrown) {
    if (open(this)) {
      return new OutcomeUnknownException(
          "the tool threw "
              + thrown
              + " while an attempt of it still ran or a transaction of it was open: what it did"
              + " there may yet take effect",
          thrown);
    }
    End anyKept = stronger(kept, kept(before));
    if (anyKept == null) {
      return null;
    }
    return new OutcomeUnknownException(
        "the tool threw "
            + thrown
            + (last != anyKept
                ? ", but a transaction of an earlier attempt "
                : " after its transaction ")
            + what(anyKept),
        thrown);
  }

  /** What {@code ends} and the invocations before it kept; null for none. */
  private static End kept(TransactionEnds ends) {
    End any = null;
    for (TransactionEnds e = ends; e != null && any != End.COMMITTED; e = e.before) {
      End own;
      synchronized (e) {
        own = e.kept;
      }
      any = stronger(any, own);
    }
    return any;
  }

  /**
   * Whether an attempt or a transaction of {@code ends} or of an invocation before it has not
   * ended.
   */
  private static boolean open(TransactionEnds ends) {
    for (TransactionEnds e = ends; e != null; e = e.before) {
      synchronized (e) {
        if (e.ended < e.begun || e.attempts > 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** COMMITTED over UNKNOWN over null. */
  private static End stronger(End a, End b) {
    return a == End.COMMITTED || b == End.COMMITTED ? End.COMMITTED : a != null ? a : b;
  }

  private static String what(End end) {
    return end == End.COMMITTED
        ? "committed: what it wrote is kept"
        : "ended in a state not known: what it wrote may be kept";
  }
}
