package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimBusyException;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.CommitOutcomeUnknownException;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The store's unit of work: a connection from its data source with a transaction open, in which the
 * action writes and the token-checked completion (or release) is written, then committed or rolled
 * back together; in single-commit mode, the claim is written in it first.
 */
final class JdbcTransactionScope implements ClaimingScope<Connection> {
  private final Connections connections;
  private final Supplier<ClaimTable.Setup> setup;

  /** Where the scope's connection comes from, and what giving it back means. */
  interface Connections {
    Connection open() throws SQLException;

    void giveBack(Connection c) throws SQLException;
  }

  JdbcTransactionScope(Connections connections, Supplier<ClaimTable.Setup> setup) {
    this.connections = connections;
    this.setup = setup;
  }

  /** A connection from the pool for each unit of work, closed (given back) after it. */
  static Connections pooled(DataSource dataSource) {
    return new Connections() {
      @Override
      public Connection open() throws SQLException {
        return dataSource.getConnection();
      }

      @Override
      public void giveBack(Connection c) throws SQLException {
        try {
          endInAutoCommit(c);
        } finally {
          c.close();
        }
      }
    };
  }

  /**
   * The caller's own connection, left open after each unit of work, in auto-commit mode. One with
   * auto-commit off is refused, untouched: it may hold a transaction of the caller's, which the
   * unit of work would join, its commit committing the caller's earlier writes and its rollback (a
   * replay, a refusal, a failed claim) undoing them.
   */
  static Connections callers(Connection connection) {
    return new Connections() {
      @Override
      public Connection open() throws SQLException {
        if (!connection.getAutoCommit()) {
          throw new IllegalStateException(
              "singleCommit(connection): the connection has auto-commit off, so it may be in a"
                  + " transaction of its own, which the gate's one commit would commit (and a"
                  + " rollback undo); end it (commit or roll back) and switch auto-commit on"
                  + " before the call; nothing was run or written, the connection is untouched");
        }
        return connection;
      }

      @Override
      public void giveBack(Connection c) throws SQLException {
        endInAutoCommit(c);
      }
    };
  }

  /**
   * Leaves the connection in auto-commit mode without committing anything: JDBC commits an open
   * transaction when auto-commit is switched on, so a transaction still open here (the unit of work
   * ended without its commit: a failed result mapping, an action that threw an {@link Error}) is
   * rolled back first. Nothing is ever committed on the way out; only the scope's own {@link
   * #commit} commits.
   */
  static void endInAutoCommit(Connection c) throws SQLException {
    if (!c.getAutoCommit()) {
      c.rollback(); // if this fails, auto-commit stays off: switching it on could commit
      c.setAutoCommit(true);
    }
  }

  @Override
  public Connection begin() {
    setup.get(); // before taking a connection: the setup needs one of its own
    Connection c = null;
    try {
      c = connections.open();
      c.setAutoCommit(false);
      return c;
    } catch (SQLException e) {
      if (c != null) {
        try {
          connections.giveBack(c);
        } catch (SQLException closing) {
          e.addSuppressed(closing);
        }
      }
      throw setup.get().failures().of("begin a transaction", e);
    }
  }

  /**
   * Claims in the transaction. A duplicate waits for another transaction's uncommitted claim of the
   * key at most {@code wait}, rounded up to whole seconds (a statement timeout); with a zero wait
   * it does not wait at all (a lock timeout of nothing, or the dialect's least, for the claim's
   * statements only).
   *
   * @throws ClaimBusyException if the key stayed locked, saying how long was actually waited
   */
  @Override
  public ClaimAttempt claim(Connection c, ClaimRequest request, Duration wait) {
    SqlDialect sql = setup.get().sql();
    boolean noWait = wait.isZero();
    int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (wait.toMillis() + 999) / 1000));
    long started = System.nanoTime();
    try {
      return noWait
          ? sql.claimInTransactionWithoutWaiting(c, request)
          : sql.claimInTransaction(c, request, seconds);
    } catch (SQLException e) {
      if (SqlDialect.isTimeout(e)) {
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        throw new ClaimBusyException(
            "another transaction holds "
                + request.id()
                + " uncommitted"
                + (noWait
                    ? " (the in-flight wait is zero: not waited for)"
                    : " and did not end within " + seconds + " s")
                + "; gave up after "
                + waited.toMillis()
                + " ms",
            waited,
            e);
      }
      throw setup.get().failures().of("claim " + request.id(), e);
    }
  }

  @Override
  public boolean complete(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    try {
      return setup.get().sql().complete(c, id, token, result, retention);
    } catch (SQLException e) {
      throw setup.get().failures().of("complete " + id, e);
    }
  }

  /**
   * Where the dialect can, the completion and the {@code COMMIT} go in one round trip (PostgreSQL:
   * one statement text holding both; MariaDB/MySQL: the table's completion procedure); elsewhere
   * the completion, then the commit.
   */
  @Override
  public boolean completeAndCommit(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    SqlDialect sql = setup.get().sql();
    if (!sql.sendsCompletionWithCommit()) {
      return ClaimingScope.super.completeAndCommit(c, id, token, result, retention);
    }
    try {
      return sql.completeAndCommit(c, id, token, result, retention);
    } catch (SQLException e) {
      if (sql.provesNotCommitted(e)) {
        throw setup.get().failures().of("complete and commit " + id, e);
      }
      throw new CommitOutcomeUnknownException(
          "the completion and commit of " + id + " failed: whether it committed is not known", e);
    }
  }

  @Override
  public boolean release(Connection c, ClaimId id, LeaseToken token) {
    try {
      return setup.get().sql().release(c, id, token);
    } catch (SQLException e) {
      throw setup.get().failures().of("release " + id, e);
    }
  }

  @Override
  public void commit(Connection c) {
    try {
      c.commit();
    } catch (SQLException e) {
      throw setup.get().failures().of("commit", e);
    }
  }

  @Override
  public void rollback(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      throw setup.get().failures().of("roll back", e);
    }
  }

  @Override
  public void close(Connection c) {
    try {
      connections.giveBack(c);
    } catch (SQLException e) {
      throw setup.get().failures().of("close a connection", e);
    }
  }
}
