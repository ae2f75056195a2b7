package dev.mcpgate.mcp;

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
 * A unit of work over a store, as a JDBC transaction behaves: its token-checked writes (and the
 * handler's own, as runnables) are checked when made and applied at commit; a rollback drops them.
 * {@link #commitFault} makes the commit fail instead of applying them. It records every begin,
 * commit, rollback and close, and the writes that reached the "database".
 */
final class UnitOfWork implements TransactionScope<List<Runnable>> {
  enum Fault {
    NONE,
    INSTEAD_OF_APPLYING
  }

  private final IdempotencyStore store;
  volatile Fault commitFault = Fault.NONE;

  /** Runs inside a failing commit, before it throws (to break the store as the commit breaks). */
  volatile Runnable onCommitFault = () -> {};

  final List<String> log = new ArrayList<>();
  final List<String> committedWrites = new ArrayList<>();

  UnitOfWork(IdempotencyStore store) {
    this.store = store;
  }

  @Override
  public synchronized List<Runnable> begin() {
    log.add("begin");
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

  /** A write of the handler's own, applied at commit. */
  void write(List<Runnable> writes, String what) {
    writes.add(
        () -> {
          synchronized (this) {
            committedWrites.add(what);
          }
        });
  }

  @Override
  public synchronized void commit(List<Runnable> writes) {
    log.add("commit");
    if (commitFault == Fault.INSTEAD_OF_APPLYING) {
      onCommitFault.run();
      throw new IllegalStateException("connection lost during commit (test)");
    }
    writes.forEach(Runnable::run);
    writes.clear();
  }

  @Override
  public synchronized void rollback(List<Runnable> writes) {
    log.add("rollback");
    writes.clear();
  }

  @Override
  public synchronized void close(List<Runnable> writes) {
    log.add("close");
  }
}
