package dev.mcpgate.core.internal.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The calls inside the engine, so that closing the gate waits for the running ones while their
 * leases are still renewed: a running action whose renewals stopped under it would be taken over by
 * a retry elsewhere once its lease ran out, and run twice. Once {@link #drain} began, a call is
 * refused before anything runs, and one already inside starts no action ({@link #isDraining}). No
 * lock on a call's way: a count, and a flag read after it.
 */
final class CallsInFlight {
  /** One closer: it waits until no more than its own thread's calls run. */
  private record Closer(int own, CompletableFuture<Void> idle) {}

  private final Ticker ticker;
  private final ThreadLocal<int[]> ours = ThreadLocal.withInitial(() -> new int[1]);
  private final AtomicInteger running = new AtomicInteger();
  private final List<Closer> closers = new CopyOnWriteArrayList<>();
  private volatile boolean draining; // written after a closer is added

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
    if (draining) { // read first: then every closer is in the list
      for (Closer c : closers) {
        if (now <= c.own()) {
          c.idle().complete(null);
        }
      }
    }
  }

  /**
   * @return true once {@link #drain} began: a call inside must not start an action
   */
  boolean isDraining() {
    return draining;
  }

  /**
   * Refuses calls from now on and waits until none runs, at most {@code timeout}: none but the
   * calling thread's own, when an action (or a store call) of the gate closes it.
   *
   * @return how many calls were still running when it stopped waiting, its own thread's included
   */
  int drain(Duration timeout) {
    Closer me = new Closer(ours.get()[0], new CompletableFuture<>());
    closers.add(me);
    draining = true;
    try {
      if (running.get() > me.own()) {
        ticker.await(me.idle(), timeout.toNanos());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // the time ran out: told by the count
    } finally {
      closers.remove(me);
    }
    return running.get();
  }
}
