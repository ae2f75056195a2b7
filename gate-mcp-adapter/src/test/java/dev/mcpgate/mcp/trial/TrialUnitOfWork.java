package dev.mcpgate.mcp.trial;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A unit of work over a store, as a JDBC transaction behaves: token-checked writes (and the
 * handler's own, as runnables) are applied at commit and dropped at rollback.
 */
final class TrialUnitOfWork implements TransactionScope<List<Runnable>> {
  private final IdempotencyStore store;
  final List<String> committed = new ArrayList<>();

  TrialUnitOfWork(IdempotencyStore store) {
    this.store = store;
  }

  /** A write of the handler's own, applied at commit. */
  void write(List<Runnable> writes, String what) {
    writes.add(() -> committed.add(what));
  }

  @Override
  public List<Runnable> begin() {
    return new ArrayList<>();
  }

  private boolean holds(ClaimId id, LeaseToken token) {
    return store
        .find(id)
        .filter(r -> r.token().equals(token) && r.state() != ClaimState.COMPLETED)
        .isPresent();
  }

  @Override
  public boolean complete(
      List<Runnable> writes,
      ClaimId id,
      LeaseToken token,
      StoredResult result,
      Duration retention) {
    boolean held = holds(id, token);
    if (held) {
      writes.add(() -> store.complete(id, token, result, retention));
    }
    return held;
  }

  @Override
  public boolean release(List<Runnable> writes, ClaimId id, LeaseToken token) {
    boolean held = holds(id, token);
    if (held) {
      writes.add(() -> store.release(id, token));
    }
    return held;
  }

  @Override
  public void commit(List<Runnable> writes) {
    writes.forEach(Runnable::run);
    writes.clear();
  }

  @Override
  public void rollback(List<Runnable> writes) {
    writes.clear();
  }

  @Override
  public void close(List<Runnable> writes) {}
}
