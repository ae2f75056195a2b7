package dev.mcpgate.cache;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts every call that reaches the store under the cache. */
final class CountingStore extends ForwardingIdempotencyStore {
  final AtomicInteger claims = new AtomicInteger();
  final AtomicInteger calls = new AtomicInteger();

  CountingStore(IdempotencyStore delegate) {
    super(delegate);
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    claims.incrementAndGet();
    calls.incrementAndGet();
    return super.claim(request);
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    calls.incrementAndGet();
    return super.complete(id, token, result, retention);
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    calls.incrementAndGet();
    return super.release(id, token);
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    calls.incrementAndGet();
    return super.extendLease(id, token, lease);
  }

  @Override
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    calls.incrementAndGet();
    return super.extendLeases(leases, lease, within);
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    calls.incrementAndGet();
    return super.markUnknown(id, token, fence);
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    calls.incrementAndGet();
    return super.find(id);
  }

  @Override
  public int purgeExpired(int limit) {
    calls.incrementAndGet();
    return super.purgeExpired(limit);
  }

  @Override
  public Instant now() {
    calls.incrementAndGet();
    return super.now();
  }
}
