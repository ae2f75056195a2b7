package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The in-memory store, with claims, releases, fences and reads that fail on demand as a lost
 * database would.
 */
final class FlakyStore extends ForwardingIdempotencyStore {
  final AtomicBoolean claimFails = new AtomicBoolean();
  final AtomicBoolean releaseFails = new AtomicBoolean();
  final AtomicBoolean findFails = new AtomicBoolean();
  final AtomicBoolean markUnknownFails = new AtomicBoolean();

  FlakyStore() {
    super(InMemoryIdempotencyStore.create());
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    if (claimFails.get()) {
      throw new IllegalStateException("connection refused (test)");
    }
    return super.claim(request);
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    if (releaseFails.get()) {
      throw new IllegalStateException("connection lost during release (test)");
    }
    return super.release(id, token);
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, java.time.Duration fence) {
    if (markUnknownFails.get()) {
      throw new IllegalStateException("connection lost while fencing (test)");
    }
    return super.markUnknown(id, token, fence);
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    if (findFails.get()) {
      throw new IllegalStateException("connection lost during read (test)");
    }
    return super.find(id);
  }

  /**
   * @return the row as the store holds it, whatever the faults
   */
  Optional<ClaimRecord> row(ClaimId id) {
    return delegate().find(id);
  }
}
