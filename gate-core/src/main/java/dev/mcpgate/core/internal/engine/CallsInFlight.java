package dev.mcpgate.core.internal.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The calls inside the engine, so that closing the gate waits for the running ones while their
 * leases are still renewed: a running action whose renewals stopped under it would be taken over by
 * a retry elsewhere once its lease ran out, and run twice. Once {@link #drain} began, a call is
 * refused before anything runs. No lock on a call's way: a count, and a flag read after it.
 */
final class CallsInFlight {
  private final Ticker ticker;
  private final CompletableFuture<Void> idle = new CompletableFuture<>();
  private final ThreadLocal<int[]> ours = ThreadLocal.withInitial(() -> new int[1]);
  private final AtomicInteger running = new AtomicInteger();
  private volatile int left; // the calls of the thread that drains: it does not wait for itself
  private volatile boolean draining; // written after left

  CallsInFlight(Ticker ticker) {
    this.ticker = ticker;
  }

  /**
   * @return false, counting nothing, once the gate is closing
   */
  boolean enter() {
    if (draining) {
      return false;
    }
    running.incrementAndGet();
    if (draining) { // drain began meanwhile, and may have read the count without this call
      exitCounted();
      return false;
    }
    ours.get()[0]++;
    return true;
  }

  /** Ends a call {@link #enter} counted. */
  void exit() {
    ours.get()[0]--;
    exitCounted();
  }

  private void exitCounted() {
    int now = running.decrementAndGet();
    if (draining && now <= left) { // draining read first: then left is the drain's
      idle.complete(null);
    }
  }

  /**
   * Refuses calls from now on and waits until none runs, at most {@code timeout}: none but the
   * calling thread's own, when an action (or a store call) of the gate closes it.
   *
   * @return how many calls of other threads were still running when it stopped waiting
   */
  int drain(Duration timeout) {
    left = ours.get()[0];
    draining = true;
    if (running.get() > left) {
      try {
        ticker.await(idle, timeout.toNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        // the time ran out: told by the count
      }
    }
    return Math.max(0, running.get() - left);
  }
}
