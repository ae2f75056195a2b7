package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One replica's way to the shared store, faulty by a seed: each call is answered, refused before it
 * acts, acted on with its reply lost, or stalled first, as the seed's draws say (while faults are
 * on); and now and then the replica pauses (a process stopped, a network cut): nothing it sends
 * reaches the store until the pause ends. The store underneath is the truth.
 */
final class FaultyStore extends ForwardingIdempotencyStore {
  /** What one call to the store comes to. */
  enum Fault {
    ANSWER,
    FAIL_BEFORE,
    LOSE_REPLY,
    STALL,
    PAUSE
  }

  /** How a call waits: real time, or a simulation's. */
  interface Waits {
    /** Waits {@code nanos}, uninterruptibly. */
    void stall(long nanos);

    /** A point where another thread may run first (a simulation's scheduling point). */
    default void step() {}

    /**
     * @return now, in nanoseconds
     */
    long now();
  }

  /** The longest a call stalls. */
  static final Duration LONGEST_STALL = Duration.ofMillis(2_500);

  /** Real time: {@link System#nanoTime()} and sleeps. */
  static final Waits REAL_TIME =
      new Waits() {
        @Override
        public void stall(long nanos) {
          try {
            TimeUnit.NANOSECONDS.sleep(nanos);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }

        @Override
        public long now() {
          return System.nanoTime();
        }
      };

  private final SplittableRandom random;
  private final int failPercent;
  private final History history;
  private final String replica;
  private final Waits waits;
  private final long maxPauseNanos;
  private volatile boolean paused; // once: pausedUntil is set
  private volatile long pausedUntil;
  volatile boolean faulty = true;

  /**
   * @param maxPauseNanos the longest pause; 0 for none
   */
  FaultyStore(
      IdempotencyStore truth,
      long seed,
      int failPercent,
      History history,
      String replica,
      Waits waits,
      long maxPauseNanos) {
    super(truth);
    this.random = new SplittableRandom(seed);
    this.failPercent = failPercent;
    this.history = history;
    this.replica = replica;
    this.waits = waits;
    this.maxPauseNanos = maxPauseNanos;
  }

  String replica() {
    return replica;
  }

  /** Waits out this replica's pause, if one is on (its actions stop too). */
  void waitOutPause() {
    if (!paused) {
      return;
    }
    long left = pausedUntil - waits.now();
    if (left > 0) {
      waits.stall(left);
    }
  }

  private Fault draw() {
    if (!faulty) {
      return Fault.ANSWER;
    }
    synchronized (random) {
      int r = random.nextInt(100);
      if (r < failPercent) {
        return Fault.FAIL_BEFORE;
      }
      if (r < 2 * failPercent) {
        return Fault.LOSE_REPLY;
      }
      if (r < 3 * failPercent) {
        return Fault.STALL;
      }
      if (maxPauseNanos > 0 && r < 3 * failPercent + 1) {
        return Fault.PAUSE;
      }
      return Fault.ANSWER;
    }
  }

  private long stallNanos() {
    synchronized (random) {
      int draw = random.nextInt(100);
      // one stall in five outlasts a renewal's deadline, one in a hundred the lease: a connection
      // that hangs (the store's other connections answer)
      return TimeUnit.MILLISECONDS.toNanos(
          draw == 0
              ? 1_000 + random.nextInt((int) LONGEST_STALL.toMillis() - 1_000)
              : draw < 20 ? 100 + random.nextInt(500) : 5 + random.nextInt(60));
    }
  }

  private long pauseNanos() {
    synchronized (random) {
      return maxPauseNanos / 8 + random.nextLong(maxPauseNanos - maxPauseNanos / 8);
    }
  }

  private <T> T call(String op, boolean write, Supplier<T> body) {
    waits.step();
    waitOutPause();
    Fault fault = draw();
    if (fault == Fault.PAUSE) {
      boolean afterActing;
      synchronized (random) {
        afterActing = random.nextBoolean();
      }
      long from = waits.now();
      long pause = pauseNanos();
      pausedUntil = from + pause;
      paused = true;
      history.paused(replica, from, from + pause);
      if (afterActing) {
        history.note(replica + " " + op + ": acted, then paused");
        T answer = body.get(); // the process stops as the reply arrives: it reads it late
        waits.stall(pause);
        return answer;
      }
      waits.stall(pause);
      fault = Fault.ANSWER;
    }
    if (fault == Fault.LOSE_REPLY && !write) {
      fault = Fault.FAIL_BEFORE; // a read that loses its reply changed nothing
    }
    if (fault != Fault.ANSWER) {
      history.note(replica + " " + op + ": " + fault);
      if (op.startsWith("extend")) {
        history.renewalFault(replica);
      }
    }
    switch (fault) {
      case FAIL_BEFORE:
        throw new StoreUnavailableException(op + " refused (sim)", null);
      case LOSE_REPLY:
        body.get();
        throw new StoreUnavailableException(op + " acted, its reply lost (sim)", null);
      case STALL:
        waits.stall(stallNanos());
        return body.get();
      default:
        return body.get();
    }
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    return call("claim " + request.id().key(), true, () -> super.claim(request));
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    return call("complete " + id.key(), true, () -> super.complete(id, token, result, retention));
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return call("release " + id.key(), true, () -> super.release(id, token));
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    return call(
        "extend " + id.key(),
        true,
        () -> {
          boolean extended = super.extendLease(id, token, lease);
          if (extended) {
            history.extended(replica, id.key());
          }
          return extended;
        });
  }

  @Override
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    return call(
        "extend " + leases.size(),
        true,
        () -> {
          ExtendedLeases answer = super.extendLeases(leases, lease, within);
          for (HeldLease held : leases) {
            if (answer.extended().contains(held.token())) {
              history.extended(replica, held.id().key());
            }
          }
          return answer;
        });
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    return call("markUnknown " + id.key(), true, () -> super.markUnknown(id, token, fence));
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    return call("find " + id.key(), false, () -> super.find(id));
  }
}
