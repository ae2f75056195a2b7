package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.spi.DaemonThreads;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.List;
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

  private final IdempotencyStore store;
  private final ScheduledExecutorService given;
  private final Executor givenWorkers;
  private final Object lock = new Object();
  private final ConcurrentHashMap<Period, RenewalGroup> groups = new ConcurrentHashMap<>();
  private volatile ScheduledExecutorService own; // set under lock
  private ExecutorService workers; // guarded by lock; runs the tries, which may hang in the store
  private volatile boolean closed;
  final Ticker ticker;

  /**
   * @param scheduler the user's scheduler, which closing does not stop; null to start a daemon
   *     thread of the renewer's own on first use, which closing stops
   * @param workers the user's executor for the tries (which may block on the store up to their
   *     deadline, or longer on a store that keeps none), which closing does not stop; null for a
   *     pool of daemon threads of the renewer's own, which closing stops
   * @param ticker this process's clock for leases, and the waits on the store
   */
  LeaseRenewer(
      IdempotencyStore store, ScheduledExecutorService scheduler, Executor workers, Ticker ticker) {
    this.ticker = ticker;
    this.store = store;
    this.given = scheduler;
    this.givenWorkers = workers;
  }

  /** One renewal cadence: the lease renewed to, and how often. */
  record Period(Duration lease, Duration every) {
    /**
     * @return the policy's cadence; with renewal off, a quarter of the lease is the period a lease
     *     is measured against
     */
    static Period of(GatePolicy policy) {
      return new Period(
          policy.lease(),
          policy.renewsLease() ? policy.leaseRenewal() : policy.lease().dividedBy(4));
    }
  }

  /**
   * The longest a try waits past its deadline for the store's answer before it is given up: the
   * store is asked to answer within the deadline, this covers a thread's wake-up.
   */
  static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

  /**
   * How much later than a period after the claim a lease's first renewal may go out without a
   * renewal before its action: the time between the scheduler's clock read for a running group's
   * next tick and this process's.
   */
  static final long FIRST_TICK_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * The most tries of one group that may wait on the store at once: past it, a store that keeps no
   * deadline of its own gets no more threads, and the leases are told they are not renewed.
   */
  static final int MAX_TRIES_WAITING = 4;

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
   * @param claimSentNanos {@link Ticker#nanoTime()} just before the claim was sent
   * @return the renewal, to {@linkplain Renewal#stop() stop} when the action ends
   * @throws IllegalStateException if the gate was closed
   */
  Renewal start(
      ClaimOutcome.Acquired claim, GatePolicy policy, Events events, long claimSentNanos) {
    Renewal renewal = new Renewal(claim, events, claimSentNanos + policy.lease().toNanos(), ticker);
    if (!policy.renewsLease()) {
      return renewal;
    }
    RenewalGroup group = group(new Period(policy.lease(), policy.leaseRenewal()), claimSentNanos);
    renewal.joined(group);
    group.running.add(renewal);
    if (closed) {
      renewal.stop();
      throw new IllegalStateException("the gate is closed: its leases are no longer renewed");
    }
    return renewal;
  }

  /**
   * The group of this period, made on first use: its first tick a period after {@code fromNanos}
   * (when the claim that made it was sent), as every tick after it is a period after the one
   * before.
   */
  private RenewalGroup group(Period period, long fromNanos) {
    RenewalGroup group = groups.get(period);
    if (group != null) {
      return group;
    }
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the gate is closed: its leases are no longer renewed");
      }
      group = groups.get(period);
      if (group == null) {
        long every = period.every().toNanos();
        group = new RenewalGroup(this, store, period, fromNanos + every);
        try {
          long first = Math.max(0, fromNanos + every - ticker.nanoTime());
          group.task =
              scheduler().scheduleWithFixedDelay(group, first, every, TimeUnit.NANOSECONDS);
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
   * hold up the deadline that gives it up, nor the retry. The user's executor, or daemons of the
   * renewer's own, ended after a minute idle and by {@link #close()}; at most {@link
   * #MAX_TRIES_WAITING} per group wait on the store at once.
   */
  Executor workers() {
    synchronized (lock) {
      if (closed) {
        throw new RejectedExecutionException("the gate is closed");
      }
      if (givenWorkers != null) {
        return givenWorkers;
      }
      if (workers == null) {
        workers =
            new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                60,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                DaemonThreads.named("mcpgate-lease-renewal"));
      }
      return workers;
    }
  }

  ScheduledExecutorService scheduler() {
    if (given != null) {
      return given;
    }
    synchronized (lock) {
      if (own == null) {
        own =
            Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.named("mcpgate-lease-renewer"));
      }
    }
    return own;
  }

  /**
   * Keeps {@code renewal}'s lease renewed while its fence waits to be written: a policy without
   * renewal gets a group of the given period, renewed from now (nothing renewed the lease while the
   * action ran and its writes waited on the store).
   *
   * @return false when the gate is closed
   * @throws IllegalStateException if the scheduler refuses the renewal
   */
  boolean keep(Renewal renewal, GatePolicy policy, Duration period) {
    synchronized (lock) {
      if (closed) {
        return false;
      }
      if (renewal.group() == null) {
        RenewalGroup group = group(new Period(policy.lease(), period), ticker.nanoTime());
        renewal.joined(group);
        group.running.add(renewal);
        if (renewal.isStopped()) {
          group.running.remove(renewal); // ended meanwhile: nothing to keep
          return true;
        }
        try {
          scheduler().execute(group);
        } catch (RejectedExecutionException e) {
          group.running.remove(renewal);
          renewal.joined(null);
          throw new IllegalStateException(
              "the lease renewal scheduler refused the renewal (was it shut down?)", e);
        }
      }
      return true;
    }
  }

  /** Whether an attempt holds its lease as its action is about to start. */
  enum Held {
    /** Confirmed by this process's clock, or by the store just now. */
    YES,
    /** The store says the token no longer holds the row: another attempt took the key over. */
    NO,
    /**
     * The store has not confirmed the lease, and it may have run out by the clock: nobody can say.
     */
    UNKNOWN,
    /**
     * The call's thread was interrupted while the store was asked: nothing is known of the lease.
     */
    INTERRUPTED
  }

  /**
   * Before an action starts: when less of its lease would be left by this process's clock, as its
   * first renewal goes out, than a lease less one renewal period (the claim took longer than a
   * period to answer, or was sent just before its group's last tick; the process was paused between
   * the claim and the action; the unit of work waited for a connection), asks the store to extend
   * it, now, within a renewal try's deadline, and says whether the attempt still holds it. An
   * action must not start unless it does: another attempt may have taken the key over meanwhile,
   * and be running the action itself.
   *
   * @return {@link Held#YES} at once while at least a lease less a period will be left by the clock
   *     at the first renewal
   */
  Held confirmBeforeAction(Renewal renewal, GatePolicy policy) {
    if (renewal.events == null) {
      return Held.YES;
    }
    if (renewal.isLost()) {
      return Held.NO;
    }
    Period period = Period.of(policy);
    Duration within = deadline(period);
    // a running action has at least a lease less a period left, as a renewal every period keeps
    // it: that is what a pause or a hung try is measured against (docs/design.md). Its first
    // renewal goes out with its group's next tick, up to a period from now: a lease that would
    // have less left by then (a claim answered late, a pause or a wait for a connection after it,
    // a claim sent just before the group's last tick) is renewed before the action, or a shorter
    // cut-off than that could let another attempt take it over
    RenewalGroup group = renewal.group();
    long now = ticker.nanoTime();
    long untilFirstRenewal = group == null ? 0 : group.nanosToNextTick(now);
    if (renewal.confirmedLeftNanos(now) - untilFirstRenewal + FIRST_TICK_SLACK_NANOS
        >= period.lease().toNanos() - period.every().toNanos()) {
      return Held.YES;
    }
    HeldLease held = new HeldLease(renewal.claim.id(), renewal.claim.token());
    // asked again while the lease has time left by the clock: a store slow to answer once (a
    // renewal connection being opened on a loaded machine) must not refuse a call whose lease
    // holds. Two tries are a tenth of a period apart at the least, so that a store failing at
    // once is not asked in a loop until then
    long spacing = period.every().toNanos() / 10;
    while (true) {
      long sent = ticker.nanoTime();
      java.util.concurrent.FutureTask<ExtendedLeases> ask =
          new java.util.concurrent.FutureTask<>(
              () -> store.extendLeases(List.of(held), period.lease(), within));
      try {
        workers().execute(ask);
        ExtendedLeases answer = ticker.await(ask, within.toNanos() + GRACE_NANOS);
        if (answer.extended().contains(held.token())) {
          renewal.renewed(sent, period.lease().toNanos());
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
        return Held.INTERRUPTED;
      }
      long rest = sent + spacing - ticker.nanoTime();
      try {
        if (rest > 0) {
          ticker.sleep(rest);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Held.INTERRUPTED;
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
   * Stops every renewal, and the renewer's own threads (a scheduler the builder was given is the
   * user's to stop). Actions still running lose their renewals: their leases run out and their
   * completions are fenced as usual.
   */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      for (RenewalGroup g : groups.values()) {
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
      if (workers != null) {
        workers.shutdownNow();
      }
    }
  }
}
