package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The running actions of one renewal period, renewed together by one task on the renewer's
 * scheduler: each try asks the store for all of them at once, on one of the renewer's workers, and
 * is given up at its deadline; a try that failed, was given up or left a lease undecided is sent
 * again at once, then after a pause that doubles up to the period.
 */
final class RenewalGroup implements Runnable {
  final LeaseRenewer.Period period;
  final Duration within;
  private final LeaseRenewer renewer;
  private final IdempotencyStore store;
  final Set<Renewal> running = ConcurrentHashMap.newKeySet();
  volatile ScheduledFuture<?> task; // cancelled on close: a scheduler given to the gate lives on
  private int waiting; // guarded by this: tries sent and not answered, given up ones included
  private Try current; // guarded by this: the try not answered nor given up, if any
  private int failedInARow; // guarded by this
  private final long firstTickNanos;
  private volatile boolean ticked; // the first tick has run

  /**
   * @param firstTickNanos when the first tick is due, by the renewer's ticker: a period after the
   *     claim that made the group was sent
   */
  RenewalGroup(
      LeaseRenewer renewer,
      IdempotencyStore store,
      LeaseRenewer.Period period,
      long firstTickNanos) {
    this.renewer = renewer;
    this.store = store;
    this.period = period;
    this.within = LeaseRenewer.deadline(period);
    this.firstTickNanos = firstTickNanos;
  }

  /**
   * @param now the renewer's ticker, read once with what it is compared to
   * @return how long from {@code now} until the group's next tick, which sends the first renewal of
   *     a lease that joins it now; 0 when it is due or running. Before the first tick, from when it
   *     is due by the ticker (the scheduler's own delay in arming it is no shortfall of the
   *     lease's); after it, from the scheduler's delay to the next
   */
  long nanosToNextTick(long now) {
    if (!ticked) {
      return Math.max(0, firstTickNanos - now);
    }
    ScheduledFuture<?> next = task;
    return next == null ? 0 : Math.max(0, next.getDelay(TimeUnit.NANOSECONDS));
  }

  /** The period's try: skipped while a try (a retry, say) is still within its deadline. */
  @Override
  public void run() {
    ticked = true;
    try {
      synchronized (this) {
        if (current == null) {
          send();
        }
      }
    } catch (RuntimeException | Error e) {
      // a scheduled task that throws is never run again: keep renewing
      Renewal any = running.stream().findFirst().orElse(null);
      if (any != null) {
        any.events.emit(
            GateEvent.Type.LEASE_RENEWAL_FAILED,
            any.claim,
            "the lease renewal failed unexpectedly; it is tried again",
            e);
      }
    }
  }

  /** Sends one try for every running action, on a worker, and gives it up at its deadline. */
  private void send() {
    List<Renewal> batch = new ArrayList<>(running.size());
    List<HeldLease> leases = new ArrayList<>(running.size());
    for (Renewal r : running) {
      if (!r.isStopped()) {
        batch.add(r);
        leases.add(new HeldLease(r.claim.id(), r.claim.token()));
      }
    }
    if (batch.isEmpty()) {
      return;
    }
    if (waiting >= LeaseRenewer.MAX_TRIES_WAITING) {
      RuntimeException stuck =
          new IllegalStateException(
              waiting + " renewal tries are still waiting on the store past their deadline");
      for (Renewal r : batch) {
        r.failed(stuck, within.toMillis());
      }
      return;
    }
    Try t = new Try(batch, renewer.ticker.nanoTime());
    waiting++;
    current = t;
    try {
      renewer.workers().execute(() -> t.ask(leases));
    } catch (RuntimeException | Error e) {
      // refused, or no thread could be made (OutOfMemoryError: unable to create native thread):
      // nothing was sent, so the next period sends again
      waiting--;
      current = null;
      RuntimeException told =
          e instanceof RuntimeException re
              ? re
              : new IllegalStateException("the renewal could not be sent: " + e, e);
      for (Renewal r : batch) {
        r.failed(told, within.toMillis());
      }
      return;
    }
    try {
      t.giveUp =
          renewer
              .scheduler()
              .schedule(
                  () -> gaveUp(t),
                  within.toNanos() + LeaseRenewer.GRACE_NANOS,
                  TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // the scheduler was shut down (the gate is closing): the try still answers, unbounded
    }
  }

  /** One try's answer, however late: extended leases only ever move forward. */
  private synchronized void answered(Try t, ExtendedLeases answer, RuntimeException failure) {
    waiting--;
    boolean inTime = !t.givenUp;
    if (current == t) {
      current = null;
    }
    if (t.giveUp != null) {
      t.giveUp.cancel(false);
    }
    boolean undecided = failure != null;
    for (Renewal r : t.batch) {
      if (failure != null) {
        if (inTime) {
          r.failed(failure, within.toMillis());
        }
      } else if (answer.extended().contains(r.claim.token())) {
        r.renewed(t.sentNanos, period.lease().toNanos());
      } else if (answer.undecided().contains(r.claim.token())) {
        undecided = true;
        if (inTime) {
          r.failed(
              new IllegalStateException(
                  "the store left the lease undecided (a locked row, a slow node)"),
              within.toMillis());
        }
      } else {
        r.refused();
      }
    }
    if (undecided && inTime) {
      retry();
    } else if (!undecided) {
      failedInARow = 0;
    }
  }

  /** A try past its deadline: its leases are told, and a new try goes out at once. */
  private synchronized void gaveUp(Try t) {
    if (t.answered) {
      return;
    }
    t.givenUp = true;
    if (current == t) {
      current = null;
    }
    RuntimeException late =
        new IllegalStateException(
            "the store did not answer the renewal within " + within.toMillis() + " ms");
    for (Renewal r : t.batch) {
      r.failed(late, within.toMillis());
    }
    retry();
  }

  /**
   * Tries again: at once after the first failure (the store gives the next try a fresh connection),
   * then after a short pause that doubles up to the period, so that a store that is down is not
   * asked in a loop.
   */
  private void retry() {
    long pause =
        failedInARow == 0
            ? 0
            : Math.min(
                period.every().toNanos(),
                TimeUnit.MILLISECONDS.toNanos(25) << Math.min(failedInARow - 1, 20));
    failedInARow++;
    try {
      renewer.scheduler().schedule(this, pause, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // the gate is closing: its leases are no longer renewed
    }
  }

  /** One renewal try: the actions it renews, and when it was sent. */
  private final class Try {
    final List<Renewal> batch;
    final long sentNanos;
    volatile ScheduledFuture<?> giveUp;
    boolean givenUp; // guarded by RenewalGroup.this
    volatile boolean answered;

    Try(List<Renewal> batch, long sentNanos) {
      this.batch = batch;
      this.sentNanos = sentNanos;
    }

    /** Asks the store, on a worker thread. */
    void ask(List<HeldLease> leases) {
      ExtendedLeases answer = null;
      RuntimeException failure = null;
      try {
        // the leases of attempts that ended since the try was sent are not renewed: their
        // own writes settle them now
        List<HeldLease> live = new ArrayList<>(leases.size());
        for (int i = 0; i < batch.size(); i++) {
          if (!batch.get(i).isStopped()) {
            live.add(leases.get(i));
          }
        }
        answer =
            live.isEmpty()
                ? ExtendedLeases.of(Set.of())
                : store.extendLeases(live, period.lease(), within);
      } catch (RuntimeException e) {
        failure = e;
      } catch (Error e) {
        failure = new IllegalStateException("the renewal failed: " + e, e);
      }
      answered = true;
      answered(this, answer, failure);
    }
  }
}
