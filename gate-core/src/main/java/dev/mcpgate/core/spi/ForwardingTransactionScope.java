package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;
import java.time.Duration;

/**
 * A unit of work that passes every call to another one: extend it and override the calls you want
 * to watch or change (a commit that fails in a test, a span around the transaction).
 *
 * @param <R> the resource type
 */
public abstract class ForwardingTransactionScope<R> implements TransactionScope<R> {
  private final TransactionScope<R> delegate;

  /**
   * @param delegate the unit of work every call goes to
   */
  protected ForwardingTransactionScope(TransactionScope<R> delegate) {
    this.delegate = Checks.notNull(delegate, "delegate");
  }

  /**
   * @return the unit of work every call goes to
   */
  protected TransactionScope<R> delegate() {
    return delegate;
  }

  @Override
  public R begin() {
    return delegate.begin();
  }

  @Override
  public boolean complete(
      R resource, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    return delegate.complete(resource, id, token, result, retention);
  }

  @Override
  public boolean release(R resource, ClaimId id, LeaseToken token) {
    return delegate.release(resource, id, token);
  }

  @Override
  public void commit(R resource) {
    delegate.commit(resource);
  }

  @Override
  public void rollback(R resource) {
    delegate.rollback(resource);
  }

  @Override
  public void close(R resource) {
    delegate.close(resource);
  }
}
