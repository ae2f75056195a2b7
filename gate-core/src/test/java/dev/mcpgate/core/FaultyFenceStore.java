package dev.mcpgate.core;

import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store (the in-memory one, say) whose completions and fences fail on demand, as a store's
 * do in a connection blip or a failover: the late-fence tests' one fault-injecting store. Every
 * fault is off by default.
 */
final class FaultyFenceStore extends ForwardingIdempotencyStore {
  /** Completions and fences are refused (thrown before they are written). */
  final AtomicBoolean refusing = new AtomicBoolean();

  /** Completions are written, and then their answer is lost (thrown after the write). */
  final AtomicBoolean loseCompleteReply = new AtomicBoolean();

  /** The next fence is written, and then its answer is lost. */
  final AtomicBoolean loseNextFenceReply = new AtomicBoolean();

  /** How many fences were asked for, refused or not. */
  final AtomicInteger fenceTries = new AtomicInteger();

  /** When above zero: every fence after the first takes this long, then times out. */
  volatile long lateFenceTakesMs;

  /** Fences being written now, and the most that ever were at once. */
  final AtomicInteger fencesOut = new AtomicInteger();

  final AtomicInteger mostFencesOut = new AtomicInteger();

  FaultyFenceStore(IdempotencyStore delegate) {
    super(delegate);
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    if (refusing.get()) {
      throw new StoreUnavailableException("complete refused (test)", null);
    }
    boolean done = super.complete(id, token, result, retention);
    if (loseCompleteReply.get()) {
      throw new StoreUnavailableException("complete reply lost (test)", null);
    }
    return done;
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    mostFencesOut.accumulateAndGet(fencesOut.incrementAndGet(), Math::max);
    try {
      return fence(id, token, fence);
    } finally {
      fencesOut.decrementAndGet();
    }
  }

  private boolean fence(ClaimId id, LeaseToken token, Duration fence) {
    int n = fenceTries.incrementAndGet();
    if (n > 1 && lateFenceTakesMs > 0) {
      try {
        Thread.sleep(lateFenceTakesMs); // a pool's connection timeout, say
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new StoreUnavailableException("markUnknown timed out (test)", null);
    }
    if (refusing.get()) {
      throw new StoreUnavailableException("markUnknown refused (test)", null);
    }
    boolean written = super.markUnknown(id, token, fence);
    if (loseNextFenceReply.compareAndSet(true, false)) {
      // the write landed, its answer did not (a timeout after the server applied it)
      throw new StoreUnavailableException("markUnknown reply lost (test)", null);
    }
    return written;
  }
}
