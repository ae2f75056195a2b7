package dev.mcpgate.core.sim;

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
import java.util.function.Supplier;

/**
 * One replica's way to the shared store, faulty by a seed: each call is answered, refused before it
 * acts, acted on with its reply lost, or stalled first, as the seed's draws say (while faults are
 * on). The store underneath is the truth.
 */
final class FaultyStore extends ForwardingIdempotencyStore {
  /** What one call to the store comes to. */
  enum Fault {
    ANSWER,
    FAIL_BEFORE,
    LOSE_REPLY,
    STALL
  }

  private final SplittableRandom random;
  private final int failPercent;
  private final History history;
  private final String replica;
  volatile boolean faulty = true;

  FaultyStore(IdempotencyStore truth, long seed, int failPercent, History history, String replica) {
    super(truth);
    this.random = new SplittableRandom(seed);
    this.failPercent = failPercent;
    this.history = history;
    this.replica = replica;
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
      return Fault.ANSWER;
    }
  }

  private long stallMillis() {
    synchronized (random) {
      return 5 + random.nextInt(60);
    }
  }

  private <T> T call(String op, boolean write, Supplier<T> body) {
    Fault fault = draw();
    if (fault == Fault.LOSE_REPLY && !write) {
      fault = Fault.FAIL_BEFORE; // a read that loses its reply changed nothing
    }
    if (fault != Fault.ANSWER) {
      history.note(replica + " " + op + ": " + fault);
    }
    switch (fault) {
      case FAIL_BEFORE:
        throw new StoreUnavailableException(op + " refused (sim)", null);
      case LOSE_REPLY:
        body.get();
        throw new StoreUnavailableException(op + " acted, its reply lost (sim)", null);
      case STALL:
        try {
          Thread.sleep(stallMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StoreUnavailableException(op + " interrupted (sim)", e);
        }
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
    return call("extend " + id.key(), true, () -> super.extendLease(id, token, lease));
  }

  @Override
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    return call("extend " + leases.size(), true, () -> super.extendLeases(leases, lease, within));
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
