package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimBusyException;
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
 * The store's unit of work: a connection from its data source with a transaction open, in which
 * the action writes and the token-checked completion (or release) is written, then committed or
 * rolled back together; in single-commit mode, the claim is written in it first.
 */
final class JdbcTransactionScope implements ClaimingScope<Connection> {
  private final Connections connections;
  private final Supplier<JdbcIdempotencyStore.Setup> setup;

  /** Where the scope's connection comes from, and what giving it back means. */
  interface Connections {
    Connection open() throws SQLException;

    void giveBack(Connection c) throws SQLException;
  }

  JdbcTransactionScope(Connections connections, Supplier<JdbcIdempotencyStore.Setup> setup) {
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
          c.setAutoCommit(true);
        } finally {
          c.close();
        }
      }
    };
  }

  /** The caller's own connection, left open after each unit of work, in auto-commit mode. */
  static Connections callers(Connection connection) {
    return new Connections() {
      @Override
      public Connection open() {
        return connection;
      }

      @Override
      public void giveBack(Connection c) throws SQLException {
        c.setAutoCommit(true);
      }
    };
  }

  @Override
  public Connection begin() {
    setup.get();   // before taking a connection: the setup needs one of its own
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

  @Override
  public ClaimAttempt claim(Connection c, ClaimRequest request, Duration wait) {
    int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE,
        (wait.toMillis() + 999) / 1000));
    try {
      return setup.get().sql().claimInTransaction(c, request, seconds);
    } catch (SQLException e) {
      if (SqlDialect.isTimeout(e)) {
        throw new ClaimBusyException("another transaction holds " + request.id()
            + " uncommitted and did not end within " + seconds + " s", Duration.ofSeconds(seconds),
            e);
      }
      throw setup.get().failures().of("claim " + request.id(), e);
    }
  }

  @Override
  public boolean complete(Connection c, ClaimId id, LeaseToken token, StoredResult result,
      Duration retention) {
    try {
      return setup.get().sql().complete(c, id, token, result, retention);
    } catch (SQLException e) {
      throw setup.get().failures().of("complete " + id, e);
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
