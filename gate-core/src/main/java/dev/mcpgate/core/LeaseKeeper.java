package dev.mcpgate.core;

import dev.mcpgate.core.spi.IdempotencyStore;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews the leases of running actions, so that a short lease (and a quick takeover after a
 * crash) never cuts off a live action. One scheduler serves every gate of the JVM: a renewal is
 * a task on it, not a thread per call. A renewal that fails is told to the listeners and tried
 * again at the next tick; a renewal that the store refuses means another attempt took the key
 * over, which ends the renewals and is what {@link ClaimContext#isLeaseLost()} reports.
 */
final class LeaseKeeper {

  /** The JVM-wide scheduler, started on first use; its daemon threads never keep a JVM alive. */
  private static final class Scheduler {
    static final ScheduledExecutorService INSTANCE = create();

    private static ScheduledExecutorService create() {
      AtomicInteger n = new AtomicInteger();
      ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, task -> {
        Thread t = new Thread(task, "mcpgate-lease-renewal-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
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
      long every = policy.leaseRenewal().toMillis();
      renewal.future = Scheduler.INSTANCE.scheduleWithFixedDelay(renewal::renew, every, every,
          TimeUnit.MILLISECONDS);
    }
    return renewal;
  }

  /** @return a renewal that renews nothing, for claims whose row no other attempt can see */
  static Renewal none(ClaimOutcome.Acquired claim) {
    return new Renewal(null, claim);
  }

  /** The renewals of one running attempt. */
  static final class Renewal {
    private final LeaseKeeper keeper;   // null: renews nothing
    private final ClaimOutcome.Acquired claim;
    private volatile ScheduledFuture<?> future;
    private volatile boolean stopped;
    private volatile boolean lost;

    private Renewal(LeaseKeeper keeper, ClaimOutcome.Acquired claim) {
      this.keeper = keeper;
      this.claim = claim;
    }

    private void renew() {
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
        lost = true;
        ScheduledFuture<?> f = future;
        if (f != null) {
          f.cancel(false);
        }
        events.emit(GateEvent.Type.LEASE_LOST, claim, "the lease was taken over while the action"
            + " ran (its renewal was refused); its result will not be stored", null);
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
      ScheduledFuture<?> f = future;
      if (f != null) {
        f.cancel(false);
      }
    }
  }
}
