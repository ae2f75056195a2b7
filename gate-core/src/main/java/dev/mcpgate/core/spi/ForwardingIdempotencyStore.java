package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A store that passes every call to another one: extend it and override the calls you want to watch
 * or change (metrics, tracing, a fault in a test), instead of implementing every method.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {
  private final IdempotencyStore delegate;

  /**
   * @param delegate the store every call goes to
   */
  protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
    this.delegate = Checks.notNull(delegate, "delegate");
  }

  /**
   * @return the store every call goes to
   */
  protected IdempotencyStore delegate() {
    return delegate;
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    return delegate.claim(request);
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    return delegate.complete(id, token, result, retention);
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return delegate.release(id, token);
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    return delegate.extendLease(id, token, lease);
  }

  @Override
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    return delegate.extendLeases(leases, lease, within);
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    return delegate.markUnknown(id, token, fence);
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    return delegate.find(id);
  }

  @Override
  public int purgeExpired(int limit) {
    return delegate.purgeExpired(limit);
  }

  @Override
  public Instant now() {
    return delegate.now();
  }
}
