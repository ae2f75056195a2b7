package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;

/**
 * The unit of work of an action that shares no transaction with its completion: completes and
 * releases straight through the store, and has nothing to commit or roll back. With it, the plain
 * and the transactional path are one path.
 */
final class DirectScope implements TransactionScope<Object> {
  static final Object RESOURCE = new Object();

  private final IdempotencyStore store;

  DirectScope(IdempotencyStore store) {
    this.store = store;
  }

  @Override
  public Object begin() {
    return RESOURCE;
  }

  @Override
  public boolean complete(
      Object resource, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    return store.complete(id, token, result, retention);
  }

  @Override
  public boolean release(Object resource, ClaimId id, LeaseToken token) {
    return store.release(id, token);
  }

  @Override
  public void commit(Object resource) {}

  @Override
  public void rollback(Object resource) {}

  @Override
  public void close(Object resource) {}
}
