package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.internal.engine.Ticker;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A deterministic world for the engine: one virtual clock and a scheduler that lets exactly one of
 * its threads (actors) run at a time. An actor runs until it waits through the simulation (a {@link
 * #sleep}, an {@link #await}, a {@link #yieldNow}, its end); the seed then picks which ready actor
 * runs next, and time moves only when none is ready, to the next wake-up. The engine's renewals,
 * late fences and store calls run on actors too ({@link SimScheduler}), so one seed decides every
 * interleaving and every timing, and a run replays exactly.
 *
 * <p>Real threads carry the actors (a handoff is a park and an unpark), so the engine runs
 * unchanged; it only has to wait through its {@link Ticker}, never on a lock held across a wait.
 */
final class Sim implements Ticker, InstantSource {
  static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  /** Thrown in an actor whose run was ended (a failure elsewhere): unwinds its stack. */
  static final class Over extends Error {
    Over() {
      super("the simulation ended", null, false, false);
    }
  }

  private enum Wait {
    READY,
    SLEEP,
    AWAIT,
    DONE
  }

  /** One thread of the simulation. */
  final class Actor {
    final int id;
    final String name;
    final Runnable body;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread;
    Wait wait = Wait.READY;
    long until = Long.MAX_VALUE;
    Future<?> awaited;
    volatile boolean interruptPending;

    Sim sim() {
      return Sim.this;
    }

    Actor(int id, String name, Runnable body) {
      this.id = id;
      this.name = name;
      this.body = body;
    }

    boolean runnable() {
      switch (wait) {
        case READY:
          return true;
        case SLEEP:
          return until <= now || interrupted();
        case AWAIT:
          return awaited.isDone() || until <= now || interrupted();
        default:
          return false;
      }
    }

    private boolean interrupted() {
      return interruptPending || thread.isInterrupted();
    }

    @Override
    public String toString() {
      return name + "#" + id;
    }
  }

  /**
   * A real thread that carries actors one after another, of this run and the next ones: starting a
   * thread costs far more than handing one over.
   */
  private static final class Carrier extends Thread {
    private static final ConcurrentLinkedDeque<Carrier> IDLE = new ConcurrentLinkedDeque<>();
    private static final AtomicInteger COUNT = new AtomicInteger();
    private volatile Actor actor;

    private Carrier() {
      super(null, null, "sim-carrier-" + COUNT.incrementAndGet(), 512 * 1024);
      setDaemon(true);
    }

    static void carry(Actor a) {
      Carrier c = IDLE.pollFirst();
      if (c == null) {
        c = new Carrier();
        c.actor = a;
        a.thread = c;
        c.start();
      } else {
        a.thread = c;
        c.actor = a;
        LockSupport.unpark(c);
      }
    }

    @Override
    public void run() {
      while (true) {
        Actor a = actor;
        if (a == null) {
          LockSupport.park(this);
          continue;
        }
        Thread.interrupted(); // nothing of the last actor's carries over
        a.sim().carry(a);
      }
    }

    /** Called by the actor's end, while it still holds the baton: free for the next one. */
    void release() {
      actor = null;
      IDLE.addFirst(this);
    }
  }

  private void carry(Actor actor) {
    try {
      awaitBaton(actor);
      actor.body.run();
    } catch (Over over) {
      ((Carrier) actor.thread).release();
      return;
    } catch (Throwable t) {
      ((Carrier) actor.thread).release();
      fail(new AssertionError("an actor (" + actor + ") failed: " + t, t));
      return;
    }
    finish(actor);
  }

  /** A task due at a virtual time: once, or again a delay after each run ends. */
  final class Timer {
    final long seq;
    final String name;
    final Runnable task;
    final long every; // 0: once
    long at;
    boolean cancelled;

    Timer(long seq, String name, Runnable task, long at, long every) {
      this.seq = seq;
      this.name = name;
      this.task = task;
      this.at = at;
      this.every = every;
    }
  }

  private final SplittableRandom random;
  private final long maxSteps;
  private final long horizonNanos;
  private final List<Actor> live = new ArrayList<>(); // by id: creation order
  private final PriorityQueue<Timer> timers =
      new PriorityQueue<>(
          Comparator.comparingLong((Timer t) -> t.at).thenComparingLong(t -> t.seq));
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile long now;
  private volatile Actor baton;
  private volatile boolean over;
  private volatile Throwable failure;
  private long seq;
  private int ids;
  private long steps;

  /**
   * @param seed decides every choice of the scheduler
   * @param maxSteps the most handoffs a run may take (a livelock fails the run)
   * @param horizonNanos the furthest virtual time a run may reach
   */
  Sim(long seed, long maxSteps, long horizonNanos) {
    this.random = new SplittableRandom(seed);
    this.maxSteps = maxSteps;
    this.horizonNanos = horizonNanos;
  }

  // ---- time

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public Instant instant() {
    return EPOCH.plusNanos(now);
  }

  /**
   * @return the virtual time, in nanoseconds since the run began
   */
  long now() {
    return now;
  }

  @Override
  public void sleep(long nanos) throws InterruptedException {
    Actor me = current();
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    me.wait = nanos <= 0 ? Wait.READY : Wait.SLEEP;
    me.until = now + Math.max(0, nanos);
    block(me);
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
  }

  /** Lets the seed pick who runs next (maybe this actor again), at the same virtual time. */
  void yieldNow() {
    Actor me = current();
    me.wait = Wait.READY;
    block(me);
  }

  /** Sleeps without being interruptible (a stalled store call, an action's work). */
  void pause(long nanos) {
    boolean interrupted = false;
    long until = now + nanos;
    while (now < until) {
      try {
        sleep(until - now);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public <T> T await(Future<T> future, long nanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    Actor me = current();
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (!future.isDone()) {
      me.wait = Wait.AWAIT;
      me.awaited = future;
      me.until = now + Math.max(0, nanos);
      block(me);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (!future.isDone()) {
        throw new TimeoutException(
            "not done within " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms");
      }
    }
    return future.get();
  }

  /** Waits (uninterruptibly) until {@code actor} has finished. */
  void join(Actor actor) {
    while (!actor.done.isDone()) {
      try {
        await(actor.done, Long.MAX_VALUE / 4);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  // ---- actors and timers

  /** Starts an actor, ready to run at once; the seed decides when it first does. */
  Actor spawn(String name, Runnable body) {
    Actor a = new Actor(ids++, name, body);
    live.add(a);
    Carrier.carry(a);
    return a;
  }

  Timer schedule(String name, Runnable task, long delayNanos, long everyNanos) {
    Timer t = new Timer(seq++, name, task, now + Math.max(0, delayNanos), everyNanos);
    timers.add(t);
    return t;
  }

  void cancel(Timer t) {
    t.cancelled = true;
    timers.remove(t);
  }

  private void fire(Timer t) {
    spawn(
        t.name,
        () -> {
          if (t.cancelled) {
            return;
          }
          t.task.run();
          if (t.every > 0 && !t.cancelled) {
            t.at = now + t.every;
            timers.add(t);
          }
        });
  }

  // ---- the run

  /**
   * Runs {@code root} and everything it starts until nothing is left to run: no actor, no timer.
   *
   * @throws AssertionError if an actor failed, the run deadlocked or ran past its budget, or it did
   *     not end within {@code realSeconds} of real time
   */
  void run(String name, Runnable root, long realSeconds) throws InterruptedException {
    spawn(name, root);
    handTo(pick());
    if (!finished.await(realSeconds, TimeUnit.SECONDS)) {
      StringBuilder dump = new StringBuilder();
      for (Actor a : new ArrayList<>(live)) {
        dump.append('\n').append(a).append(" ").append(a.wait).append(a == baton ? " (runs)" : "");
        for (StackTraceElement e : a.thread.getStackTrace()) {
          dump.append("\n    at ").append(e);
        }
      }
      fail(new AssertionError("the simulation did not end in " + realSeconds + " s:" + dump));
    }
    if (failure != null) {
      throw failure instanceof AssertionError ae ? ae : new AssertionError(failure);
    }
  }

  private Actor current() {
    Actor running = baton;
    if (running != null && running.thread == Thread.currentThread()) {
      return running;
    }
    throw new IllegalStateException(
        Thread.currentThread().getName() + " waits through the simulation but is not its actor");
  }

  private void block(Actor me) {
    Actor next = pick();
    if (next == null) {
      fail(new AssertionError("deadlock: " + me + " waits, and nothing will wake it"));
      throw new Over();
    }
    if (next == me) {
      ready(me);
      return;
    }
    handTo(next);
    awaitBaton(me);
  }

  private void finish(Actor me) {
    me.wait = Wait.DONE;
    live.remove(me);
    me.done.complete(null);
    ((Carrier) me.thread).release();
    if (over) {
      return;
    }
    Actor next = pick();
    if (next != null) {
      handTo(next);
    } else if (live.isEmpty() && timers.isEmpty()) {
      finished.countDown();
    } else {
      fail(new AssertionError("deadlock: " + live + " wait, and nothing will wake them"));
    }
  }

  /**
   * @return the actor to run next, by the seed among the ready ones, after moving time to the next
   *     wake-up when none is; null when nothing will ever be ready
   */
  private Actor pick() {
    while (true) {
      if (over) {
        throw new Over();
      }
      if (++steps > maxSteps) {
        fail(new AssertionError("more than " + maxSteps + " steps: a livelock?"));
        throw new Over();
      }
      while (!timers.isEmpty() && timers.peek().at <= now) {
        fire(timers.poll());
      }
      List<Actor> ready = new ArrayList<>(live.size());
      for (Actor a : live) {
        if (a.runnable()) {
          ready.add(a);
        }
      }
      if (!ready.isEmpty()) {
        return ready.get(random.nextInt(ready.size()));
      }
      long next = timers.isEmpty() ? Long.MAX_VALUE : timers.peek().at;
      for (Actor a : live) {
        if (a.wait == Wait.SLEEP || a.wait == Wait.AWAIT) {
          next = Math.min(next, a.until);
        }
      }
      if (next == Long.MAX_VALUE) {
        return null;
      }
      if (next > horizonNanos) {
        fail(
            new AssertionError(
                "virtual time passed "
                    + TimeUnit.NANOSECONDS.toSeconds(horizonNanos)
                    + " s: "
                    + live
                    + " still wait, "
                    + timers.size()
                    + " timers left"));
        throw new Over();
      }
      now = next;
    }
  }

  private void ready(Actor a) {
    a.wait = Wait.READY;
    a.until = Long.MAX_VALUE;
    a.awaited = null;
  }

  private void handTo(Actor next) {
    ready(next);
    baton = next;
    LockSupport.unpark(next.thread);
  }

  private void awaitBaton(Actor me) {
    while (baton != me) {
      if (over) {
        throw new Over();
      }
      LockSupport.park(this);
      if (Thread.currentThread().isInterrupted()) {
        me.interruptPending = true; // first: the scheduler reads one of the two at any time
        Thread.interrupted();
      }
    }
    if (me.interruptPending) {
      me.interruptPending = false;
      Thread.currentThread().interrupt();
    }
  }

  private void fail(Throwable t) {
    if (failure == null) {
      failure = t;
    }
    over = true;
    for (Actor a : new ArrayList<>(live)) {
      LockSupport.unpark(a.thread);
    }
    finished.countDown();
  }

  /**
   * @return how many actors ran, and how many times the scheduler picked one
   */
  String stats() {
    return ids + " actors, " + steps + " steps, " + now / 1_000_000 + " ms";
  }

  /**
   * @return the seed's next number, for the actors' own choices (only the running actor draws)
   */
  SplittableRandom random() {
    return random;
  }
}
