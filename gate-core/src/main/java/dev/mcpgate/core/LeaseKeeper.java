package dev.mcpgate.core;

import dev.mcpgate.core.spi.IdempotencyStore;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews the leases of running actions, so that a short lease (and a quick takeover after a
 * crash) never cuts off a live action. One sweeper serves every gate of the JVM: a running action
 * is an entry in a concurrent set, not a thread or a scheduled task of its own, so an action that
 * ends before its first renewal (most of them) costs one insert and one removal. Every
 * {@value #TICK_MS} ms the sweeper hands the renewals that are due to two worker threads, which
 * do the store's I/O. A renewal that fails is told to the listeners and tried again when next
 * due; a renewal that the store refuses means another attempt took the key over, which ends the
 * renewals and is what {@link ClaimContext#isLeaseLost()} reports.
 */
final class LeaseKeeper {
  static final long TICK_MS = 10;

  /** The JVM-wide sweeper and its workers, started on first use, on daemon threads. */
  private static final class Sweeper {
    static final Set<Renewal> RUNNING = ConcurrentHashMap.newKeySet();
    static final ExecutorService WORKERS = workers();
    static final ScheduledExecutorService TICKER = ticker();

    private static ExecutorService workers() {
      AtomicInteger n = new AtomicInteger();
      return new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
          task -> daemon(task, "mcpgate-lease-renewal-" + n.incrementAndGet()));
    }

    private static ScheduledExecutorService ticker() {
      ScheduledExecutorService t = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          task -> daemon(task, "mcpgate-lease-sweeper"));
      t.scheduleWithFixedDelay(Sweeper::sweep, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
      return t;
    }

    private static Thread daemon(Runnable task, String name) {
      Thread t = new Thread(task, name);
      t.setDaemon(true);
      return t;
    }

    private static void sweep() {
      long now = System.nanoTime();
      for (Renewal r : RUNNING) {
        if (now - r.dueNanos >= 0 && r.busy.compareAndSet(false, true)) {
          WORKERS.execute(r::renew);
        }
      }
    }
  }

  private final IdempotencyStore store;
  private final GatePolicy policy;
  private final Events events;

  LeaseKeeper(IdempotencyStore store, GatePolicy policy, Events events) {
    this.store = store;
    this.policy = policy;
    this.events = events;
  }

  /**
   * Starts renewing the lease of {@code claim} every {@link GatePolicy#leaseRenewal()}; nothing
   * is renewed when the policy turns renewal off.
   *
   * @return the renewal, to {@linkplain Renewal#stop() stop} when the action ends
   */
  Renewal start(ClaimOutcome.Acquired claim) {
    Renewal renewal = new Renewal(this, claim);
    if (policy.renewsLease()) {
      renewal.dueNanos = System.nanoTime() + policy.leaseRenewal().toNanos();
      Sweeper.RUNNING.add(renewal);   // the first use starts the sweeper
    }
    return renewal;
  }

  /** @return how many attempts the sweeper renews now, in every gate of the JVM */
  static int running() {
    return Sweeper.RUNNING.size();
  }

  /** @return a renewal that renews nothing, for claims whose row no other attempt can see */
  static Renewal none(ClaimOutcome.Acquired claim) {
    return new Renewal(null, claim);
  }

  /** The renewals of one running attempt. */
  static final class Renewal {
    private final LeaseKeeper keeper;   // null: renews nothing
    private final ClaimOutcome.Acquired claim;
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile long dueNanos;
    private volatile boolean stopped;
    private volatile boolean lost;

    private Renewal(LeaseKeeper keeper, ClaimOutcome.Acquired claim) {
      this.keeper = keeper;
      this.claim = claim;
    }

    /** One renewal, on a worker thread; the next is due a renewal period after it. */
    private void renew() {
      try {
        if (stopped || lost) {
          return;
        }
        GatePolicy policy = keeper.policy;
        Events events = keeper.events;
        boolean held;
        try {
          held = keeper.store.extendLease(claim.id(), claim.token(), policy.lease());
        } catch (RuntimeException e) {
          if (!stopped) {
            events.emit(GateEvent.Type.LEASE_RENEWAL_FAILED, claim, "could not renew the lease;"
                + " the action goes on and renewal is tried again in "
                + policy.leaseRenewal().toMillis() + " ms, but if the lease runs out first"
                + " another attempt may take the key over", e);
          }
          return;
        }
        if (stopped) {
          return;   // the action ended meanwhile; what it writes next decides, not this answer
        }
        if (held) {
          events.emit(GateEvent.Type.LEASE_RENEWED, claim, "lease renewed for "
              + policy.lease().toMillis() + " ms", null);
        } else {
          markLost();
          events.emit(GateEvent.Type.LEASE_LOST, claim, "the lease was taken over while the"
              + " action ran (its renewal was refused); its result will not be stored", null);
        }
      } finally {
        if (keeper != null) {
          dueNanos = System.nanoTime() + keeper.policy.leaseRenewal().toNanos();
        }
        busy.set(false);
      }
    }

    /** @return true once a renewal was refused: another attempt holds the key now */
    boolean isLost() {
      return lost;
    }

    /** Records that the lease was found taken over elsewhere, and stops renewing. */
    void markLost() {
      lost = true;
      stop();
    }

    /** Stops renewing; an answer still on its way is ignored. */
    void stop() {
      stopped = true;
      if (keeper != null && keeper.policy.renewsLease()) {
        Sweeper.RUNNING.remove(this);
      }
    }
  }
}
