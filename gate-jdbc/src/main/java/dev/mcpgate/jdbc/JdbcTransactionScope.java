package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The store's unit of work: a connection from its data source with a transaction open, in which
 * the action writes and the token-checked completion (or release) is written, then committed or
 * rolled back together.
 */
final class JdbcTransactionScope implements TransactionScope<Connection> {
  private final DataSource dataSource;
  private final SqlDialect sql;
  private final SqlFailures failures;

  JdbcTransactionScope(DataSource dataSource, SqlDialect sql, SqlFailures failures) {
    this.dataSource = dataSource;
    this.sql = sql;
    this.failures = failures;
  }

  @Override
  public Connection begin() {
    try {
      Connection c = dataSource.getConnection();
      try {
        c.setAutoCommit(false);
        return c;
      } catch (SQLException e) {
        c.close();
        throw e;
      }
    } catch (SQLException e) {
      throw failures.of("begin a transaction", e);
    }
  }

  @Override
  public boolean complete(Connection c, ClaimId id, LeaseToken token, StoredResult result,
      Duration retention) {
    try {
      return sql.complete(c, id, token, result, retention);
    } catch (SQLException e) {
      throw failures.of("complete " + id, e);
    }
  }

  @Override
  public boolean release(Connection c, ClaimId id, LeaseToken token) {
    try {
      return sql.release(c, id, token);
    } catch (SQLException e) {
      throw failures.of("release " + id, e);
    }
  }

  @Override
  public void commit(Connection c) {
    try {
      c.commit();
    } catch (SQLException e) {
      throw failures.of("commit", e);
    }
  }

  @Override
  public void rollback(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      throw failures.of("roll back", e);
    }
  }

  @Override
  public void close(Connection c) {
    try {
      try {
        c.setAutoCommit(true);
      } finally {
        c.close();
      }
    } catch (SQLException e) {
      throw failures.of("close a connection", e);
    }
  }
}
