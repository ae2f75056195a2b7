package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of one gate's running actions, on a path of its own: its own scheduler thread
 * (the gate builder's, or one it starts and {@linkplain #close() stops}), never a thread of the
 * tools, and the store's {@link IdempotencyStore#extendLeases} (a JDBC store's own connection,
 * never the tools' pool). Every renewal period, one call renews every running action of the store
 * that shares a lease and period: the renewals cost one store call per period, not one per call in
 * flight.
 *
 * <p>Each running action knows until when its lease is confirmed: the send time of the last claim
 * or renewal the store accepted, plus the lease, by this process's monotonic clock. Past that,
 * another attempt may have taken the key over, and {@link ClaimContext#mayHaveLostLease()} says so,
 * whatever the renewal thread is doing (stuck on a store that does not answer, say). A refused
 * renewal means the key was taken over: {@link ClaimContext#isLeaseLost()}.
 */
final class LeaseRenewer implements AutoCloseable {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final Logger LOG = LoggerFactory.getLogger(Events.LOGGER);

  private final IdempotencyStore store;
  private final ScheduledExecutorService given;
  private final Object lock = new Object();
  private final ConcurrentHashMap<Period, Group> groups = new ConcurrentHashMap<>();
  private final Set<Renewal> pending = ConcurrentHashMap.newKeySet(); // fences to write late
  private volatile ScheduledExecutorService own; // set under lock
  private ExecutorService workers; // guarded by lock; runs the tries, which may hang in the store
  private ScheduledExecutorService fencer; // guarded by lock; writes late fences, never renewals
  private volatile boolean closed;

  /**
   * @param scheduler the user's scheduler, which closing does not stop; null to start a daemon
   *     thread of the renewer's own on first use, which closing stops
   */
  LeaseRenewer(IdempotencyStore store, ScheduledExecutorService scheduler) {
    this.store = store;
    this.given = scheduler;
  }

  /** One renewal cadence: the lease renewed to, and how often. */
  record Period(Duration lease, Duration every) {}

  /**
   * The longest a try waits past its deadline for the store's answer before it is given up: the
   * store is asked to answer within the deadline, this covers a thread's wake-up.
   */
  private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

  /**
   * The most tries of one group that may wait on the store at once: past it, a store that keeps no
   * deadline of its own gets no more threads, and the leases are told they are not renewed.
   */
  private static final int MAX_TRIES_WAITING = 4;

  /** The running actions of one period, renewed together by one scheduled task. */
  private final class Group implements Runnable {
    final Period period;
    final Duration within;
    final Set<Renewal> running = ConcurrentHashMap.newKeySet();
    volatile ScheduledFuture<?> task; // cancelled on close: a scheduler given to the gate lives on
    private int waiting; // guarded by this: tries sent and not answered, given up ones included
    private Try current; // guarded by this: the try not answered nor given up, if any
    private int failedInARow; // guarded by this

    Group(Period period) {
      this.period = period;
      this.within = deadline(period);
    }

    /** The period's try: skipped while a try (a retry, say) is still within its deadline. */
    @Override
    public void run() {
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
        if (!r.stopped) {
          batch.add(r);
          leases.add(new HeldLease(r.claim.id(), r.claim.token()));
        }
      }
      if (batch.isEmpty()) {
        return;
      }
      if (waiting >= MAX_TRIES_WAITING) {
        RuntimeException stuck =
            new IllegalStateException(
                waiting + " renewal tries are still waiting on the store past their deadline");
        for (Renewal r : batch) {
          r.failed(stuck, this);
        }
        return;
      }
      Try t = new Try(batch, System.nanoTime());
      waiting++;
      current = t;
      try {
        workers().execute(() -> t.ask(leases));
      } catch (RejectedExecutionException e) {
        waiting--;
        current = null;
        for (Renewal r : batch) {
          r.failed(e, this);
        }
        return;
      }
      try {
        t.giveUp =
            scheduler()
                .schedule(() -> gaveUp(t), within.toNanos() + GRACE_NANOS, TimeUnit.NANOSECONDS);
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
            r.failed(failure, this);
          }
        } else if (answer.extended().contains(r.claim.token())) {
          r.renewed(t.sentNanos, period);
        } else if (answer.undecided().contains(r.claim.token())) {
          undecided = true;
          if (inTime) {
            r.failed(
                new IllegalStateException(
                    "the store left the lease undecided (a locked row, a slow node)"),
                this);
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
        r.failed(late, this);
      }
      retry();
    }

    /**
     * Tries again: at once after the first failure (the store gives the next try a fresh
     * connection), then after a short pause that doubles up to the period, so that a store that is
     * down is not asked in a loop.
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
        scheduler().schedule(this, pause, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closing) {
        // the gate is closing: its leases are no longer renewed
      }
    }

    /** One renewal try: the actions it renews, and when it was sent. */
    private final class Try {
      final List<Renewal> batch;
      final long sentNanos;
      volatile ScheduledFuture<?> giveUp;
      boolean givenUp; // guarded by Group.this
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
            if (!batch.get(i).stopped) {
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

  /**
   * How long one renewal try may take: a third of what the lease leaves after one period, so that a
   * try that hangs and the retry sent at once after it both end before the lease does (period + two
   * deadlines is the lease less one deadline). A quarter of the lease at the default period.
   */
  static Duration deadline(Period period) {
    long left = period.lease().toNanos() - period.every().toNanos();
    return Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), left / 3));
  }

  /**
   * Starts renewing {@code claim}'s lease per the policy; nothing is renewed when the policy turns
   * renewal off, but the renewal still tells when the lease runs out.
   *
   * @param claimSentNanos {@link System#nanoTime()} just before the claim was sent
   * @return the renewal, to {@linkplain Renewal#stop() stop} when the action ends
   * @throws IllegalStateException if the gate was closed
   */
  Renewal start(
      ClaimOutcome.Acquired claim, GatePolicy policy, Events events, long claimSentNanos) {
    Renewal renewal = new Renewal(claim, events, claimSentNanos + policy.lease().toNanos());
    if (!policy.renewsLease()) {
      return renewal;
    }
    Group group = group(new Period(policy.lease(), policy.leaseRenewal()));
    renewal.group = group;
    group.running.add(renewal);
    if (closed) {
      renewal.stop();
      throw new IllegalStateException("the gate is closed: its leases are no longer renewed");
    }
    return renewal;
  }

  private Group group(Period period) {
    Group group = groups.get(period);
    if (group != null) {
      return group;
    }
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the gate is closed: its leases are no longer renewed");
      }
      group = groups.get(period);
      if (group == null) {
        group = new Group(period);
        long every = period.every().toNanos();
        try {
          group.task =
              scheduler().scheduleWithFixedDelay(group, every, every, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          throw new IllegalStateException(
              "the lease renewal scheduler refused the renewals" + " (was it shut down?)", e);
        }
        groups.put(period, group);
      }
      return group;
    }
  }

  /**
   * The threads the tries run on, never the scheduler's: a try that hangs in the store must not
   * hold up the deadline that gives it up, nor the retry. Daemons, ended after a minute idle and by
   * {@link #close()}; at most {@link #MAX_TRIES_WAITING} per group wait on the store at once.
   */
  private Executor workers() {
    synchronized (lock) {
      if (closed) {
        throw new RejectedExecutionException("the gate is closed");
      }
      if (workers == null) {
        ThreadPoolExecutor pool =
            new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                60,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                task -> {
                  Thread t = new Thread(task, "mcpgate-lease-renewal-" + THREADS.incrementAndGet());
                  t.setDaemon(true);
                  return t;
                });
        workers = pool;
      }
      return workers;
    }
  }

  private ScheduledExecutorService scheduler() {
    if (given != null) {
      return given;
    }
    if (own == null) {
      own =
          Executors.newSingleThreadScheduledExecutor(
              task -> {
                Thread t = new Thread(task, "mcpgate-lease-renewer-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
    }
    return own;
  }

  /**
   * Takes over an attempt whose action ran (or may have) and whose fence the store did not take:
   * its lease stays renewed with the running actions', so that no retry takes the key over and runs
   * the action again, and the fence is tried again every renewal period on a thread of its own (a
   * write that waits for a pooled connection never holds up a renewal), until the store takes it,
   * finds the lease taken over, or the gate is closed. What is left is the limit renewals have
   * anyway: a store that answers no renewal for longer than the lease may let another attempt take
   * the key over first, and then the fence finds that and says so.
   *
   * @return false when there is no lease to keep (a claim no other attempt sees, or a closed gate):
   *     the key then stays claimed until its lease expires
   */
  boolean fenceLater(Renewal renewal, GatePolicy policy, String message, Throwable failure) {
    if (renewal.events == null || renewal.stopped) {
      return false;
    }
    Duration period =
        policy.renewsLease()
            ? policy.leaseRenewal()
            : Duration.ofNanos(
                Math.max(policy.lease().toNanos() / 4, TimeUnit.MILLISECONDS.toNanos(1)));
    long every = period.toNanos();
    synchronized (lock) {
      if (closed) {
        return false;
      }
      if (renewal.group == null) {
        // a policy without renewal: the lease must still be kept while the fence waits, from now
        // (nothing renewed it while the action ran and its writes waited on the store)
        Group group = group(new Period(policy.lease(), period));
        renewal.group = group;
        group.running.add(renewal);
        try {
          scheduler().execute(group);
        } catch (RejectedExecutionException e) {
          group.running.remove(renewal);
          renewal.group = null;
          throw new IllegalStateException(
              "the lease renewal scheduler refused the renewal (was it shut down?)", e);
        }
      }
      if (fencer == null) {
        fencer =
            Executors.newSingleThreadScheduledExecutor(
                task -> {
                  Thread t = new Thread(task, "mcpgate-fencer-" + THREADS.incrementAndGet());
                  t.setDaemon(true);
                  return t;
                });
      }
      renewal.renewer = this;
      renewal.fencePending = true;
      renewal.fenced(); // before anyone else can try the fence and find it otherwise
      renewal.fenceGivesUpAtNanos = System.nanoTime() + policy.unknownFence().toNanos();
      renewal.lateTry = () -> renewal.tryFence(store, policy, message, failure);
      pending.add(renewal);
      renewal.lateFence =
          fencer.scheduleWithFixedDelay(renewal.lateTry, every, every, TimeUnit.NANOSECONDS);
    }
    if (renewal.stopped) { // stopped (a leaked context's refused extension) while scheduled
      renewal.lateFence.cancel(false);
      pending.remove(renewal);
    }
    return true;
  }

  /** Whether an attempt holds its lease as its action is about to start. */
  enum Held {
    /** Confirmed by this process's clock, or by the store just now. */
    YES,
    /** The store says the token no longer holds the row: another attempt took the key over. */
    NO,
    /** The store did not answer within a try's deadline: nobody can say. */
    UNKNOWN
  }

  /**
   * Before an action starts: when its lease may have run out by this process's clock (the process
   * was paused between the claim and the action, or the unit of work waited long for a connection),
   * asks the store to extend it once, now, within a renewal try's deadline, and says whether the
   * attempt still holds it. An action must not start unless it does: another attempt may have taken
   * the key over meanwhile, and be running the action itself.
   *
   * @return {@link Held#YES} at once while the lease is confirmed by the clock
   */
  Held confirmBeforeAction(Renewal renewal, GatePolicy policy) {
    if (renewal.events == null) {
      return Held.YES;
    }
    if (renewal.isLost()) {
      return Held.NO;
    }
    Period period =
        new Period(
            policy.lease(),
            policy.renewsLease() ? policy.leaseRenewal() : policy.lease().dividedBy(4));
    Duration within = deadline(period);
    // the group renews the lease within a period, and its try may take a deadline: a lease with
    // less left than that (a claim answered late, a pause after it) is renewed before the action
    if (renewal.confirmedLeftNanos() > period.every().toNanos() + within.toNanos()) {
      return Held.YES;
    }
    HeldLease held = new HeldLease(renewal.claim.id(), renewal.claim.token());
    // asked again while the lease has time left by the clock: a store slow to answer once (a
    // renewal connection being opened on a loaded machine) must not refuse a call whose lease holds
    while (true) {
      long sent = System.nanoTime();
      java.util.concurrent.FutureTask<ExtendedLeases> ask =
          new java.util.concurrent.FutureTask<>(
              () -> store.extendLeases(List.of(held), period.lease(), within));
      try {
        workers().execute(ask);
        ExtendedLeases answer = ask.get(within.toNanos() + GRACE_NANOS, TimeUnit.NANOSECONDS);
        if (answer.extended().contains(held.token())) {
          renewal.renewed(sent, period);
          return Held.YES;
        }
        if (!answer.undecided().contains(held.token())) {
          renewal.markLost();
          return Held.NO;
        }
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        ask.cancel(true);
      } catch (RejectedExecutionException closed) {
        return Held.UNKNOWN; // the gate is closing
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        ask.cancel(true);
        return Held.UNKNOWN;
      }
      if (renewal.mayBeLost()) {
        return Held.UNKNOWN; // the lease may have run out, and the store has not said it holds
      }
    }
  }

  /**
   * @return how many attempts this renewer renews now
   */
  int running() {
    return groups.values().stream().mapToInt(g -> g.running.size()).sum();
  }

  /**
   * @return true when {@link #close()} was called
   */
  boolean isClosed() {
    return closed;
  }

  /**
   * Stops every renewal, and the renewer's own thread if it started one (a scheduler the builder
   * was given is the user's to stop). Actions still running lose their renewals: their leases run
   * out and their completions are fenced as usual.
   */
  @Override
  public void close() {
    try {
      lastFences();
    } finally {
      closeNow();
    }
  }

  private void closeNow() {
    synchronized (lock) {
      closed = true;
      for (Renewal r : pending) { // still not written, or handed over after the last tries
        LOG.error(
            "closing the gate before the fence of {} (attempt {}) could be written: the store"
                + " refused it; once its lease runs out a retry may run the action again. Settle"
                + " it by hand (gate.resolveUnknown) or check downstream with its downstream key",
            r.claim.id(),
            r.claim.attempt());
      }
      for (Group g : groups.values()) {
        g.running.forEach(Renewal::stop);
        ScheduledFuture<?> task = g.task;
        if (task != null) {
          task.cancel(false);
        }
      }
      groups.clear();
      if (own != null) {
        own.shutdownNow();
      }
      if (fencer != null) {
        fencer.shutdownNow();
      }
      if (workers != null) {
        workers.shutdownNow();
      }
    }
  }

  /** How long {@link #close()} waits for the last try of the fences still to be written. */
  private static final Duration LAST_FENCES = Duration.ofSeconds(5);

  /**
   * Before closing: tries each fence still to be written once more (the store may take it by now),
   * on the fencer's thread, waiting at most {@link #LAST_FENCES} in all, while the leases are still
   * renewed. A key whose fence is still not written is logged at ERROR by the close: its lease runs
   * out once renewals stop, and a retry may then run its action again.
   */
  private void lastFences() {
    List<Renewal> left = new ArrayList<>(pending);
    if (left.isEmpty()) {
      return;
    }
    ScheduledExecutorService tries;
    synchronized (lock) {
      tries = fencer;
    }
    if (tries == null) {
      return;
    }
    // on the fencer's thread, so that a store call that does not return holds the close up no
    // longer than the wait below; the renewals go on meanwhile
    long deadline = System.nanoTime() + LAST_FENCES.toNanos();
    for (Renewal r : left) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        break;
      }
      try {
        tries.submit(r::runTryFence).get(remaining, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException slow) {
        break;
      } catch (java.util.concurrent.ExecutionException failed) {
        LOG.error("the last try of the fence of {} failed", r.claim.id(), failed.getCause());
      } catch (RejectedExecutionException gone) {
        break;
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }

  /**
   * @return a renewal that renews nothing and never lapses, for claims no other attempt sees
   */
  static Renewal none(ClaimOutcome.Acquired claim) {
    return new Renewal(claim, null, 0);
  }

  /** The lease of one running attempt. */
  static final class Renewal {
    private final ClaimOutcome.Acquired claim;
    private final Events events; // null: renews nothing
    private final AtomicBoolean lapseTold = new AtomicBoolean();
    private volatile Group group;
    private volatile LeaseRenewer renewer; // set with a late fence
    private volatile long confirmedUntilNanos; // written under confirming
    private final Object confirming = new Object();
    private volatile boolean stopped;
    private volatile boolean finishing;
    private volatile boolean lost;
    private volatile boolean fencePending;
    private volatile boolean fenced;
    private volatile ScheduledFuture<?> lateFence;
    private volatile long fenceGivesUpAtNanos;
    private volatile Runnable lateTry; // the fence's next try, for the close's last one

    private Renewal(ClaimOutcome.Acquired claim, Events events, long confirmedUntilNanos) {
      this.claim = claim;
      this.events = events;
      this.confirmedUntilNanos = confirmedUntilNanos;
    }

    private void renewed(long sentNanos, Period period) {
      if (stopped) {
        return; // the action ended meanwhile; what it writes next decides, not this answer
      }
      long until = sentNanos + period.lease().toNanos();
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
          "lease renewed for " + period.lease().toMillis() + " ms",
          null);
    }

    private void refused() {
      if (stopped || finishing) {
        return; // the attempt's own token-checked write decides now
      }
      markLost();
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "the lease was taken over while the"
              + " action ran (its renewal was refused); its result will not be stored",
          null);
    }

    private void failed(RuntimeException e, Group group) {
      if (stopped) {
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
              + group.within.toMillis()
              + " ms); the action goes on and renewal is tried again at once, but if the lease"
              + " runs out first another attempt may take the key over",
          e);
    }

    /** Records that the gate fenced the key as unknown (written, or kept to be written). */
    void fenced() {
      fenced = true;
    }

    /**
     * @return true once the key is fenced as unknown by this attempt, or its fence is pending
     */
    boolean isFenced() {
      return fenced;
    }

    /**
     * @return true once a renewal was refused: another attempt holds the key now
     */
    boolean isLost() {
      return lost;
    }

    /**
     * @return true when the lease is lost, or has run out without a renewal the store confirmed:
     *     another attempt may hold the key now
     */
    boolean mayBeLost() {
      return lost || hasLapsed();
    }

    /**
     * @return how long the lease is confirmed for from now, by this process's clock (negative once
     *     it has run out)
     */
    long confirmedLeftNanos() {
      return confirmedUntilNanos - System.nanoTime();
    }

    private boolean hasLapsed() {
      return events != null && System.nanoTime() - confirmedUntilNanos >= 0;
    }

    /** Records that the lease was found taken over elsewhere, and stops renewing. */
    void markLost() {
      lost = true;
      stop();
    }

    /**
     * The action has ended and its settling writes begin: renewals go on (the lease must not run
     * out while a write waits for a connection), but a refused one no longer marks the lease lost,
     * since it may only have met this attempt's own completion.
     */
    void finishing() {
      finishing = true;
    }

    /** The attempt's call has returned: stops renewing, unless a fence is still to be written. */
    void attemptEnded() {
      if (!fencePending) {
        stop();
      }
    }

    /** Runs the fence's next try now, on the caller's thread (the gate's close). */
    private void runTryFence() {
      Runnable next = lateTry;
      if (next != null && fencePending) {
        next.run();
      }
    }

    /**
     * Writes the late fence once more; stops renewing once the store answered either way, or once
     * the fence's own time ({@link GatePolicy#unknownFence()}) has passed, as a written fence would
     * have expired by then: the lease then runs out and the key is free.
     */
    private synchronized void tryFence(
        IdempotencyStore store, GatePolicy policy, String message, Throwable failure) {
      if (stopped || !fencePending) {
        ScheduledFuture<?> task = lateFence;
        if (task != null) {
          task.cancel(false);
        }
        return;
      }
      try {
        if (AttemptRunner.writeFence(
                store,
                events,
                policy,
                claim,
                message + " (written late, once the store took it)",
                failure)
            != AttemptRunner.Fence.WRITTEN) {
          fenced = false; // stored after all, or another attempt took the key over: not fenced
        }
      } catch (RuntimeException stillFailing) {
        if (System.nanoTime() - fenceGivesUpAtNanos >= 0) {
          events.emit(
              GateEvent.Type.STORE_FAILED,
              claim,
              "the store refused the fence for as long as a fence lasts ("
                  + policy.unknownFence()
                  + "); the lease is no longer kept and runs out",
              stillFailing);
          stop();
        }
        return; // tried again next period, the lease renewed meanwhile
      } catch (Error e) {
        stop(); // the task ends with it: renew nothing for a fence nobody tries any more
        throw e;
      }
      stop();
    }

    /** Stops renewing (and writing a late fence); an answer still on its way is ignored. */
    void stop() {
      stopped = true;
      fencePending = false;
      LeaseRenewer owner = renewer;
      if (owner != null) {
        owner.pending.remove(this);
      }
      ScheduledFuture<?> task = lateFence;
      if (task != null) {
        task.cancel(false);
      }
      Group g = group;
      if (g != null) {
        g.running.remove(this);
      }
    }
  }
}
