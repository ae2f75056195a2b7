package dev.mcpgate.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/**
 * The store's one connection for lease renewals, kept open between them so that a renewal never
 * waits for a connection of a pool that the tools may hold in full. It is taken once, at the
 * store's setup (by default from the store's own data source, before the tools can exhaust it), and
 * used by one renewal at a time. Each use has a deadline: a network timeout and a query timeout of
 * the order of the lease, so that a hung renewal gives up rather than outliving the lease it
 * renews. Any {@link SQLException} closes the connection; the next use opens a new one.
 */
final class RenewalConnection implements AutoCloseable {
  /** Runs the driver's abort work on the calling thread; drivers only use it on a timeout. */
  private static final Executor DIRECT = Runnable::run;

  private final DataSource source;
  private Connection connection; // guarded by this
  private int networkTimeoutMillis; // guarded by this; what the connection was given
  private boolean closed; // guarded by this

  /**
   * @param source where the connection comes from
   */
  RenewalConnection(DataSource source) {
    this.source = source;
  }

  /** Work on the renewal connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Opens the connection now, unless it is open (or the store closed): called at the store's setup,
   * to have it before the tools use the pool.
   *
   * @throws SQLException if the data source gives none
   */
  synchronized void open() throws SQLException {
    if (!closed && connection == null) {
      connection = connect();
    }
  }

  /**
   * Runs {@code work} on the connection (opening one if there is none), alone, with a deadline.
   *
   * @param deadline how long the connection may wait on the network; at least 1 s is used
   * @throws SQLException from the work or the data source; the connection is closed then
   * @throws IllegalStateException if the store was closed
   */
  synchronized <T> T use(Duration deadline, Work<T> work) throws SQLException {
    if (closed) {
      throw new IllegalStateException("the JDBC store was closed: it renews no more leases");
    }
    try {
      if (connection == null) {
        connection = connect();
      }
      Connection c = connection;
      int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1000, deadline.toMillis()));
      if (millis != networkTimeoutMillis) {
        setNetworkTimeout(c, millis);
        networkTimeoutMillis = millis;
      }
      return work.run(c);
    } catch (SQLException | RuntimeException | Error e) {
      discard(e);
      throw e;
    }
  }

  /** Closes the connection (giving it back to its pool); no later use opens another. */
  @Override
  public synchronized void close() throws SQLException {
    closed = true;
    Connection c = connection;
    connection = null;
    if (c != null) {
      c.close();
    }
  }

  /**
   * @return true while a connection is open (for tests)
   */
  synchronized boolean isOpen() {
    return connection != null;
  }

  private Connection connect() throws SQLException {
    Connection c = source.getConnection();
    networkTimeoutMillis = -1;
    try {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      return c;
    } catch (SQLException e) {
      closeQuietly(c, e);
      throw e;
    }
  }

  private void discard(Throwable cause) {
    Connection c = connection;
    connection = null;
    if (c != null) {
      closeQuietly(c, cause);
    }
  }

  private static void closeQuietly(Connection c, Throwable cause) {
    try {
      c.close();
    } catch (SQLException | RuntimeException closing) {
      cause.addSuppressed(closing);
    }
  }

  /** Sets the driver's socket timeout; a driver without one relies on the query timeout. */
  private static void setNetworkTimeout(Connection c, int millis) throws SQLException {
    try {
      c.setNetworkTimeout(DIRECT, millis);
    } catch (SQLFeatureNotSupportedException | UnsupportedOperationException e) {
      // H2 in process has no network; the statements' query timeout still applies
    }
  }
}
