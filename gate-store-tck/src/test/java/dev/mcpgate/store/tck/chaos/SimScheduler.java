package dev.mcpgate.store.tck.chaos;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The gate's scheduler and executor in a simulation: a task handed over runs on an actor of its
 * own, a delayed task at its virtual time. It is never shut down: the gate's close cancels what it
 * scheduled, and the run ends when nothing is left.
 */
final class SimScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final Sim sim;
  private final String name;

  SimScheduler(Sim sim, String name) {
    this.sim = sim;
    this.name = name;
  }

  @Override
  public void execute(Runnable command) {
    sim.spawn(name, command);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return timed(command, unit.toNanos(delay), 0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    FutureTask<V> task = new FutureTask<>(callable);
    Handle<V> h = new Handle<>(sim.schedule(name, task, unit.toNanos(delay), 0), task);
    return h;
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return timed(command, unit.toNanos(initialDelay), unit.toNanos(period));
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return timed(command, unit.toNanos(initialDelay), unit.toNanos(delay));
  }

  private ScheduledFuture<?> timed(Runnable command, long delay, long every) {
    if (every < 0) {
      throw new IllegalArgumentException("period " + every);
    }
    return new Handle<>(sim.schedule(name, command, delay, every), null);
  }

  /** A scheduled task's handle: its delay, and its cancellation. */
  private final class Handle<V> implements ScheduledFuture<V> {
    private final Sim.Timer timer;
    private final FutureTask<V> result; // null: a Runnable, nothing to get

    Handle(Sim.Timer timer, FutureTask<V> result) {
      this.timer = timer;
      this.result = result;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(timer.at - sim.now(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean was = timer.cancelled;
      sim.cancel(timer);
      if (result != null) {
        result.cancel(false);
      }
      return !was;
    }

    @Override
    public boolean isCancelled() {
      return timer.cancelled;
    }

    @Override
    public boolean isDone() {
      return timer.cancelled || (result != null && result.isDone());
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
      if (result == null) {
        throw new UnsupportedOperationException("the simulation does not wait on a timer");
      }
      return result.get();
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException {
      return get();
    }
  }

  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }
}
