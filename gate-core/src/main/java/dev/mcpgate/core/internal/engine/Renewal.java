package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The lease of one running attempt, as its {@link LeaseRenewer} keeps it: until when the store last
 * confirmed it (by this process's monotonic clock), and which {@link Phase} the attempt is in.
 * Every change of phase is one compare-and-set from the phases it may leave, so two threads (the
 * call's and a renewal try's, say) never both act on one lease's end.
 */
final class Renewal {

  /**
   * Where the attempt stands. Renewed while {@link #RUNNING}, {@link #FINISHING} or {@link
   * #FENCE_PENDING}; the other three are final.
   */
  enum Phase {
    /** The action may be running: a refused renewal means another attempt took the key over. */
    RUNNING,
    /**
     * The action ended and the attempt's own token-checked writes settle it: a refused renewal may
     * only have met this attempt's own completion, so it decides nothing.
     */
    FINISHING,
    /** The key is to be fenced as unknown and the store has not taken the fence yet. */
    FENCE_PENDING,
    /** Final: this attempt fenced the key as unknown. */
    FENCED,
    /** Final: another attempt took the key over (a refused renewal, or the store said so). */
    LOST,
    /** Final: nothing more to renew. */
    ENDED;

    boolean isFinal() {
      return this == FENCED || this == LOST || this == ENDED;
    }
  }

  final ClaimOutcome.Acquired claim;
  final Events events; // null: renews nothing
  private final Ticker ticker;
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.RUNNING);
  private final AtomicBoolean lapseTold = new AtomicBoolean();
  private final Object confirming = new Object();
  private volatile long confirmedUntilNanos; // written under confirming
  private volatile RenewalGroup group; // the renewals it is part of, if any
  private volatile Runnable onEnd; // the late fence's cancellation, if one is pending
  // the gate decided to fence the key and kept the fence to be written: told by isFenced() after
  // the renewal ends too (a close, a give-up), unless the late fence found it needless
  private volatile boolean fenceKept;

  Renewal(ClaimOutcome.Acquired claim, Events events, long confirmedUntilNanos, Ticker ticker) {
    this.ticker = ticker;
    this.claim = claim;
    this.events = events;
    this.confirmedUntilNanos = confirmedUntilNanos;
  }

  /**
   * @return a renewal that renews nothing and never lapses, for claims no other attempt sees
   */
  static Renewal none(ClaimOutcome.Acquired claim) {
    return new Renewal(claim, null, 0, Ticker.SYSTEM);
  }

  Phase phase() {
    return phase.get();
  }

  RenewalGroup group() {
    return group;
  }

  void joined(RenewalGroup g) {
    group = g;
  }

  /** Runs {@code cancel} when the renewal ends (at once if it has ended already). */
  void onEnd(Runnable cancel) {
    onEnd = cancel;
    if (isStopped()) {
      cancel.run();
    }
  }

  /** A renewal sent at {@code sentNanos} for {@code leaseNanos} was accepted by the store. */
  void renewed(long sentNanos, long leaseNanos) {
    if (isStopped()) {
      return; // the action ended meanwhile; what it writes next decides, not this answer
    }
    long until = sentNanos + leaseNanos;
    synchronized (confirming) {
      if (until - confirmedUntilNanos <= 0) {
        return; // a late answer to an older try: the lease only moves forward
      }
      confirmedUntilNanos = until;
    }
    lapseTold.set(false);
    events.emit(
        GateEvent.Type.LEASE_RENEWED,
        claim,
        "lease renewed for " + leaseNanos / 1_000_000 + " ms",
        null);
  }

  /** The store refused a renewal: the token no longer holds the row. */
  void refused() {
    if (!phase.compareAndSet(Phase.RUNNING, Phase.LOST)) {
      return; // finishing, or ended: the attempt's own token-checked write decides now
    }
    ended();
    events.emit(
        GateEvent.Type.LEASE_LOST,
        claim,
        "the lease was taken over while the"
            + " action ran (its renewal was refused); its result will not be stored",
        null);
  }

  /** A renewal try failed or was left undecided; {@code withinMillis} is a try's deadline. */
  void failed(RuntimeException e, long withinMillis) {
    if (isStopped()) {
      return;
    }
    if (hasLapsed() && lapseTold.compareAndSet(false, true)) {
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "the lease ran out unrenewed (the store"
              + " did not answer the renewals): another attempt may take the key over; this"
              + " attempt's result is stored only if none did",
          e);
      return;
    }
    events.emit(
        GateEvent.Type.LEASE_RENEWAL_FAILED,
        claim,
        "could not renew the lease (a try has "
            + withinMillis
            + " ms); the action goes on and renewal is tried again at once, but if the lease"
            + " runs out first another attempt may take the key over",
        e);
  }

  /**
   * The action has ended and its settling writes begin: renewals go on (the lease must not run out
   * while a write waits for a connection), but a refused one no longer marks the lease lost.
   */
  void finishing() {
    phase.compareAndSet(Phase.RUNNING, Phase.FINISHING);
  }

  /**
   * The gate wrote the key's fence as unknown: nothing more to renew. From any phase: a fence
   * written after renewals stopped (a single-commit completion that failed) is still this
   * attempt's.
   */
  void fenced() {
    if (!phase.getAndSet(Phase.FENCED).isFinal()) {
      ended();
    }
  }

  /**
   * The fence could not be written now and is kept to be written late: renewals go on.
   *
   * @return false when the renewal had ended already (nothing to keep)
   */
  boolean fencePending() {
    boolean kept =
        phase.compareAndSet(Phase.FINISHING, Phase.FENCE_PENDING)
            || phase.compareAndSet(Phase.RUNNING, Phase.FENCE_PENDING);
    if (kept) {
      fenceKept = true;
    }
    return kept;
  }

  /**
   * The key is not fenced by this attempt after all: the late fence found the result stored or the
   * key taken over, or the fence could not be kept. Nothing more is renewed.
   */
  void notFenced() {
    fenceKept = false;
    stop();
  }

  /**
   * @return true once the key is fenced as unknown by this attempt, or its fence was kept to be
   *     written: the gate's decision, which the renewal's end (the gate closed, the fence given up)
   *     does not change; false again only once it is {@linkplain #notFenced() not fenced} after all
   */
  boolean isFenced() {
    Phase p = phase.get();
    return p == Phase.FENCED || p == Phase.FENCE_PENDING || fenceKept;
  }

  /**
   * @return true once a renewal was refused: another attempt holds the key now
   */
  boolean isLost() {
    return phase.get() == Phase.LOST;
  }

  boolean isStopped() {
    return phase.get().isFinal();
  }

  /**
   * @return true when the lease is lost, or has run out without a renewal the store confirmed:
   *     another attempt may hold the key now
   */
  boolean mayBeLost() {
    return isLost() || hasLapsed();
  }

  /**
   * @param now this process's ticker, read once with what it is compared to
   * @return how long the lease is confirmed for from {@code now} (negative once it has run out)
   */
  long confirmedLeftNanos(long now) {
    return confirmedUntilNanos - now;
  }

  private boolean hasLapsed() {
    return events != null && ticker.nanoTime() - confirmedUntilNanos >= 0;
  }

  /** Records that the lease was found taken over elsewhere, and stops renewing. */
  void markLost() {
    Phase before = phase.getAndUpdate(p -> p == Phase.FENCED ? p : Phase.LOST);
    if (!before.isFinal()) {
      ended();
    }
  }

  /** The attempt's call has returned: stops renewing, unless a fence is still to be written. */
  void attemptEnded() {
    if (phase.get() != Phase.FENCE_PENDING) {
      stop();
    }
  }

  /** Stops renewing (and writing a late fence); an answer still on its way is ignored. */
  void stop() {
    if (move(Phase.ENDED)) {
      ended();
    }
  }

  /** Moves to the final phase {@code to} from any phase that is not final. */
  private boolean move(Phase to) {
    while (true) {
      Phase now = phase.get();
      if (now.isFinal()) {
        return false;
      }
      if (phase.compareAndSet(now, to)) {
        return true;
      }
    }
  }

  private void ended() {
    RenewalGroup g = group;
    if (g != null) {
      g.running.remove(this);
    }
    Runnable cancel = onEnd;
    if (cancel != null) {
      cancel.run();
    }
  }
}
