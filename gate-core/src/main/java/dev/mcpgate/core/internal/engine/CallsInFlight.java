package dev.mcpgate.core.internal.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The calls inside the engine, so that closing the gate waits for the running ones while their
 * leases are still renewed: a running action whose renewals stopped under it would be taken over by
 * a retry elsewhere once its lease ran out, and run twice. Once {@link #drain} began, a call is
 * refused before anything runs.
 */
final class CallsInFlight {
  private final Ticker ticker;
  private final CompletableFuture<Void> idle = new CompletableFuture<>();
  private final ThreadLocal<int[]> ours = ThreadLocal.withInitial(() -> new int[1]);
  private int running;
  private int left; // the calls of the thread that drains: it does not wait for itself
  private boolean draining;

  CallsInFlight(Ticker ticker) {
    this.ticker = ticker;
  }

  /**
   * @return false, counting nothing, once the gate is closing
   */
  synchronized boolean enter() {
    if (draining) {
      return false;
    }
    running++;
    ours.get()[0]++;
    return true;
  }

  /** Ends a call {@link #enter} counted. */
  synchronized void exit() {
    ours.get()[0]--;
    if (--running <= left && draining) {
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
    synchronized (this) {
      draining = true;
      left = ours.get()[0];
      if (running <= left) {
        return 0;
      }
    }
    try {
      ticker.await(idle, timeout.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // the time ran out: told by the count
    }
    synchronized (this) {
      return running - left;
    }
  }
}
