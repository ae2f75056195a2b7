package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the fences the store could not take when their attempts ended. Such an attempt's action
 * ran (or may have), so its lease stays renewed by the {@link LeaseRenewer} (no retry takes the key
 * over and runs the action again) while the fence is tried again every renewal period, until the
 * store takes it, finds the lease taken over, the fence's own time has passed, or the gate is
 * closed. The renewer's scheduler times the tries and its worker threads run them, so a write that
 * waits for a pooled connection never holds up a renewal, and a try still out is not sent again.
 * What is left is the limit renewals have anyway: a store that answers no renewal for longer than
 * the lease may let another attempt take the key over first, and then the fence finds that and says
 * so.
 */
final class LateFencer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Events.LOGGER);

  /** How long {@link #close()} waits for the last tries of the fences still to be written. */
  private static final Duration LAST_TRIES = Duration.ofSeconds(5);

  private final IdempotencyStore store;
  private final LeaseRenewer renewer;
  private final Set<LateFence> pending = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private boolean closed; // guarded by lock

  LateFencer(IdempotencyStore store, LeaseRenewer renewer) {
    this.store = store;
    this.renewer = renewer;
  }

  /**
   * Takes over the fence of {@code renewal}'s attempt, which the store did not take: keeps its
   * lease renewed and writes the fence as soon as the store takes it; the renewal's phase becomes
   * {@link Renewal.Phase#FENCE_PENDING}.
   *
   * @return false when there is no lease to keep (a claim no other attempt sees, an ended renewal,
   *     a closed gate): the key then stays claimed until its lease expires
   * @throws IllegalStateException if the scheduler refuses the renewal or the fence's tries
   */
  boolean fenceLater(Renewal renewal, GatePolicy policy, String message, Throwable failure) {
    if (renewal.events == null || renewal.isStopped()) {
      return false;
    }
    Duration period =
        policy.renewsLease()
            ? policy.leaseRenewal()
            : Duration.ofNanos(
                Math.max(policy.lease().toNanos() / 4, TimeUnit.MILLISECONDS.toNanos(1)));
    LateFence fence;
    synchronized (lock) {
      if (closed || !renewer.keep(renewal, policy, period)) {
        return false;
      }
      if (!renewal.fencePending()) {
        return false; // ended meanwhile
      }
      fence = new LateFence(renewal, policy, message, failure);
      pending.add(fence);
      long every = period.toNanos();
      try {
        fence.task =
            renewer.scheduler().scheduleWithFixedDelay(fence, every, every, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        pending.remove(fence);
        renewal.notFenced(); // not kept: the caller is told the key stays claimed, not fenced
        throw new IllegalStateException(
            "the lease renewal scheduler refused the fence's tries (was it shut down?)", e);
      }
    }
    renewal.onEnd(fence::cancel); // at once if it ended while scheduled
    return true;
  }

  /** One fence still to be written, and its tries. */
  private final class LateFence implements Runnable {
    final Renewal renewal;
    final GatePolicy policy;
    final String message;
    final Throwable failure;
    final long givesUpAtNanos;
    final AtomicBoolean out = new AtomicBoolean(); // a try is on a worker, not yet done
    volatile ScheduledFuture<?> task;

    LateFence(Renewal renewal, GatePolicy policy, String message, Throwable failure) {
      this.renewal = renewal;
      this.policy = policy;
      this.message = message;
      this.failure = failure;
      this.givesUpAtNanos = renewer.ticker.nanoTime() + policy.unknownFence().toNanos();
    }

    /** On the scheduler: hands one try to a worker, unless the last one is still out. */
    @Override
    public void run() {
      if (renewal.isStopped()) {
        cancel();
        return;
      }
      if (!out.compareAndSet(false, true)) {
        return;
      }
      try {
        renewer.workers().execute(this::tryOnce);
      } catch (RuntimeException | Error notSent) {
        // refused (the gate is closing), or no thread could be made: tried again next period; a
        // scheduled task that throws would never run again, and the lease would be kept forever
        out.set(false);
      }
    }

    /**
     * Writes the fence once; ends the renewal once the store answered either way, or once the
     * fence's own time ({@link GatePolicy#unknownFence()}) has passed, as a written fence would
     * have expired by then: the lease then runs out and the key is free.
     */
    private synchronized void tryOnce() {
      try {
        if (renewal.phase() != Renewal.Phase.FENCE_PENDING) {
          return;
        }
        FenceWriter.Fence found =
            FenceWriter.write(
                store,
                renewal.events,
                policy,
                renewal.claim,
                message + " (written late, once the store took it)",
                failure);
        if (found == FenceWriter.Fence.WRITTEN) {
          renewal.fenced();
        } else {
          renewal.notFenced(); // stored after all, or another attempt took the key over
        }
      } catch (RuntimeException stillFailing) {
        if (renewer.ticker.nanoTime() - givesUpAtNanos >= 0) {
          renewal.stop(); // first: a listener that fails on the event must not keep the lease
          renewal.events.emit(
              GateEvent.Type.STORE_FAILED,
              renewal.claim,
              "the store refused the fence for as long as a fence lasts ("
                  + policy.unknownFence()
                  + "); the lease is no longer kept and runs out",
              stillFailing);
        } // else tried again next period, the lease renewed meanwhile
      } catch (Error e) {
        renewal.stop(); // renew nothing for a fence nobody tries any more
        throw e;
      } finally {
        out.set(false);
      }
    }

    void cancel() {
      pending.remove(this);
      ScheduledFuture<?> t = task;
      if (t != null) {
        t.cancel(false);
      }
    }
  }

  /**
   * Before the gate closes: tries each fence still to be written once more (the store may take it
   * by now), on the renewer's workers, waiting at most {@link #LAST_TRIES} in all, while the leases
   * are still renewed; then logs at ERROR each key whose fence is still not written (its lease runs
   * out once renewals stop, and a retry may then run its action again) and stops the tries.
   */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
    }
    long deadline = renewer.ticker.nanoTime() + LAST_TRIES.toNanos();
    for (LateFence f : new ArrayList<>(pending)) {
      long remaining = deadline - renewer.ticker.nanoTime();
      if (remaining <= 0) {
        break;
      }
      FutureTask<Void> last = new FutureTask<>(f::tryOnce, null);
      try {
        renewer.workers().execute(last);
        renewer.ticker.await(last, remaining);
      } catch (java.util.concurrent.TimeoutException slow) {
        break;
      } catch (java.util.concurrent.ExecutionException failed) {
        LOG.error(
            "the last try of the fence of {} failed", f.renewal.claim.id(), failed.getCause());
      } catch (RejectedExecutionException gone) {
        break;
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    List<LateFence> left = new ArrayList<>(pending);
    for (LateFence f : left) {
      LOG.error(
          "closing the gate before the fence of {} (attempt {}) could be written: the store"
              + " refused it; once its lease runs out a retry may run the action again. Once the"
              + " lease has run out, settle it by hand (gate.resolveUnknown) before a retry comes,"
              + " or check downstream with its downstream key",
          f.renewal.claim.id(),
          f.renewal.claim.attempt());
      f.cancel();
      f.renewal.events.emit(
          GateEvent.Type.STORE_FAILED,
          f.renewal.claim,
          "the gate closed before the store took the fence: the lease is no longer kept, and once"
              + " it runs out a retry may run the action again",
          null);
    }
  }
}
