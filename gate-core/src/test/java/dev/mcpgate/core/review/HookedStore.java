package dev.mcpgate.core.review;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The in-memory store with the hooks the review tests set: a step run just before the next claim
 * (another attempt acting between a read and a write), failures injected before a write (nothing
 * written) or after it (a lost reply), a release sent twice, and a {@link #now()} that runs ahead
 * of the claims' clock.
 */
class HookedStore extends ForwardingIdempotencyStore {
  final AtomicReference<Runnable> beforeNextClaim = new AtomicReference<>();
  final AtomicBoolean failNextClaimAfterItsWrite = new AtomicBoolean();
  final AtomicBoolean failNextMarkUnknown = new AtomicBoolean();
  final AtomicBoolean failNextMarkUnknownAfterItsWrite = new AtomicBoolean();
  final AtomicBoolean failNextRelease = new AtomicBoolean();
  final AtomicBoolean failNextReleaseAfterItsWrite = new AtomicBoolean();

  /**
   * The next release runs twice and answers as the second run did (as when Lettuce re-sends a
   * command whose reply was lost).
   */
  final AtomicBoolean resendNextRelease = new AtomicBoolean();

  /** Every find fails while set (set too by a claim failed after its write). */
  final AtomicBoolean failFinds = new AtomicBoolean();

  /** How far {@link #now()} runs ahead of the clock the claims are written with. */
  volatile Duration nowAhead = Duration.ZERO;

  HookedStore(InstantSource clock) {
    super(InMemoryIdempotencyStore.create(clock));
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    Runnable hook = beforeNextClaim.getAndSet(null);
    if (hook != null) {
      hook.run();
    }
    ClaimAttempt attempt = super.claim(request);
    if (failNextClaimAfterItsWrite.getAndSet(false)) {
      failFinds.set(true); // and the store stays unreachable for the read back
      throw new StoreUnavailableException("reply lost (injected, after the write)", null);
    }
    return attempt;
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    if (failNextMarkUnknown.getAndSet(false)) {
      throw new StoreUnavailableException("connection reset (injected)", null);
    }
    boolean marked = super.markUnknown(id, token, fence);
    if (failNextMarkUnknownAfterItsWrite.getAndSet(false)) {
      throw new StoreUnavailableException("reply lost (injected, after the write)", null);
    }
    return marked;
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    if (failNextRelease.getAndSet(false)) {
      throw new StoreUnavailableException("connection reset (injected)", null);
    }
    boolean released = super.release(id, token);
    if (failNextReleaseAfterItsWrite.getAndSet(false)) {
      throw new StoreUnavailableException("reply lost (injected, after the write)", null);
    }
    return resendNextRelease.getAndSet(false) ? super.release(id, token) : released;
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    if (failFinds.get()) {
      throw new StoreUnavailableException("connection refused (injected)", null);
    }
    return super.find(id);
  }

  @Override
  public Instant now() {
    return super.now().plus(nowAhead);
  }
}
