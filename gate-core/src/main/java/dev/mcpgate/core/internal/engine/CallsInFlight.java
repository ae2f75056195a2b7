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
      wakeIfOnlyClosersRun(now);
    }
  }

  /**
   * Wakes every closer once no calls run but those of closing threads: two actions that each close
   * their gate must not wait for each other.
   */
  private void wakeIfOnlyClosersRun(int now) {
    int closing = 0;
    for (Closer c : closers) {
      closing += c.own();
    }
    if (now <= closing) {
      closers.forEach(c -> c.idle().complete(null));
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
    wakeIfOnlyClosersRun(running.get()); // this closer's own calls may be all another waits for
    boolean interrupted = false;
    long end = ticker.nanoTime() + timeout.toNanos();
    try {
      while (!me.idle().isDone()) {
        long left = end - ticker.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          ticker.await(me.idle(), left);
        } catch (InterruptedException e) {
          interrupted = true; // the drain is what keeps running actions' leases: it goes on
        } catch (ExecutionException | TimeoutException e) {
          break; // the time ran out: told by the count
        }
      }
    } finally {
      closers.remove(me);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    return running.get();
  }
}
