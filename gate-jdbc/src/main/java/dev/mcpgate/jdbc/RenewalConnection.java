package dev.mcpgate.jdbc;

import dev.mcpgate.core.spi.DaemonThreads;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The store's connection for lease renewals, from a {@link RenewalSource} (not the tools' pool
 * where that can be helped). It is opened by the first renewal, not at setup (a store that renews
 * nothing holds nothing), and kept idle between renewals. A connection borrowed from the tools'
 * pool (the fallback) gets no session setting and its network timeout back before it returns. Each
 * use takes it, or opens a new one when it is in use or gone, so a renewal that hangs never holds
 * up the next try; each use has the try's deadline as its network timeout; any failure closes the
 * connection it used, and the next use opens another.
 */
final class RenewalConnection implements AutoCloseable {
  /** The threads that open a renewal connection within its try's deadline. */
  private final DaemonThreads openers = DaemonThreads.named("mcpgate-renewal-open");

  /**
   * The most opens pending at once, each on an opener thread of its own: a try after an open that
   * hangs (a server that accepts the connection and then says nothing, for as long as the driver's
   * own timeout, 10 s to 30 s) starts a fresh one, while a store that hangs every open holds this
   * many threads, not one more per try.
   */
  static final int MAX_PENDING_OPENS = 4;

  /** Runs the driver's abort work on the calling thread; drivers only use it on a timeout. */
  private static final Executor DIRECT = Runnable::run;

  private final RenewalSource source;
  private final Set<Connection> inUse = ConcurrentHashMap.newKeySet();
  private final java.util.Map<Connection, Integer> borrowedTimeouts = new ConcurrentHashMap<>();
  private final AtomicInteger opening = new AtomicInteger(); // opens pending, given up on or not
  private Connection idle; // guarded by this
  private boolean closed; // guarded by this

  /**
   * @param source where connections come from
   */
  RenewalConnection(RenewalSource source) {
    this.source = source;
  }

  /** Work on a renewal connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} on the idle connection, or a new one, with a deadline.
   *
   * @param within the try's deadline: the network timeout of the connection, and what opening one
   *     is given
   * @param session statements a new connection runs first
   * @throws SQLException from the work or the source; the connection is closed then
   * @throws IllegalStateException if the store was closed
   */
  <T> T use(Duration within, List<String> session, Work<T> work) throws SQLException {
    Connection c = take();
    try {
      if (c == null) {
        c = open(within, session);
      }
      setNetworkTimeout(c, (int) Math.min(Integer.MAX_VALUE, Math.max(1, within.toMillis())));
      T result = work.run(c);
      giveBack(c);
      return result;
    } catch (SQLException | RuntimeException | Error e) {
      if (c != null) {
        inUse.remove(c);
        close(c, e);
      }
      throw e;
    }
  }

  /**
   * Closes {@code c}; one borrowed from the tools' pool first gets back the network timeout it came
   * with, since the pool hands it to a tool next.
   */
  private void close(Connection c, Throwable cause) {
    if (source.sharesPool()) {
      Integer before = borrowedTimeouts.remove(c);
      if (before != null) {
        try {
          if (!c.isClosed()) {
            setNetworkTimeout(c, before);
          }
        } catch (SQLException | RuntimeException restoring) {
          cause.addSuppressed(restoring);
        }
      }
    }
    closeQuietly(c, cause);
  }

  private synchronized Connection take() {
    if (closed) {
      throw new IllegalStateException("the JDBC store was closed: it renews no more leases");
    }
    Connection c = idle;
    idle = null;
    if (c != null) {
      inUse.add(c);
    }
    return c;
  }

  /**
   * Opens a connection within the try's deadline: the source's own open (a driver's unpooled data
   * source, a pool) may have no deadline of its own, and a server that accepts the TCP connection
   * and then says nothing would hold the renewal far past it. The open runs on a thread of its own;
   * past the deadline the try fails, and the connection, should it come, is kept for the next try
   * (or closed, as {@link #giveBack} says). A later try starts a fresh open while fewer than {@link
   * #MAX_PENDING_OPENS} are pending; past that it fails at once rather than start another.
   */
  private Connection open(Duration within, List<String> session) throws SQLException {
    if (opening.incrementAndGet() > MAX_PENDING_OPENS) {
      opening.decrementAndGet();
      throw new SQLTimeoutException(
          MAX_PENDING_OPENS
              + " renewal connections opened earlier are still opening, past their deadlines",
          "08001");
    }
    CompletableFuture<Connection> opened = new CompletableFuture<>();
    Thread opener =
        openers.newThread(
            () -> {
              Connection c = null;
              Throwable failed = null;
              try {
                c = openNow(within, session);
              } catch (Throwable e) {
                failed = e;
              }
              opening.decrementAndGet(); // before the answer: its try may open again at once
              if (failed == null) {
                opened.complete(c);
              } else {
                opened.completeExceptionally(failed);
              }
            });
    opener.start();
    try {
      Connection c = opened.get(Math.max(1, within.toMillis()), TimeUnit.MILLISECONDS);
      inUse.add(c);
      return c;
    } catch (TimeoutException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      SQLException late =
          new SQLTimeoutException(
              "could not open a renewal connection within " + within.toMillis() + " ms", "08001");
      opened.thenAccept(this::giveBack); // came too late for this try: kept for the next
      throw late;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SQLException sql) {
        throw sql;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new SQLException("could not open a renewal connection: " + cause, "08001", cause);
    }
  }

  /** Opens a connection from the source and readies it for renewals, on the opener's thread. */
  private Connection openNow(Duration within, List<String> session) throws SQLException {
    Connection c = source.open(within);
    try {
      if (source.sharesPool()) {
        // the pool hands it to a tool after: change no session setting it would keep
        borrowedTimeouts.put(c, c.getNetworkTimeout());
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        return c;
      }
      setNetworkTimeout(c, (int) Math.min(Integer.MAX_VALUE, Math.max(1, within.toMillis())));
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      if (!session.isEmpty()) {
        try (Statement s = c.createStatement()) {
          for (String sql : session) {
            s.execute(sql);
          }
        }
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      close(c, e);
      throw e;
    }
  }

  /**
   * Keeps {@code c} for the next use, unless one is kept already, the store was closed, or the
   * driver closed it (a statement it cancelled on a timeout).
   */
  private void giveBack(Connection c) {
    boolean open;
    try {
      open = !c.isClosed();
    } catch (SQLException e) {
      open = false;
    }
    boolean keep;
    synchronized (this) {
      inUse.remove(c);
      keep = open && !closed && idle == null;
      if (keep) {
        idle = c;
      }
    }
    if (!keep) {
      close(c, new IllegalStateException("a renewal connection not kept"));
    }
  }

  /**
   * Closes the kept connection and those in use (giving them back to their pool, when they came
   * from one); no later use opens another.
   */
  @Override
  public void close() throws SQLException {
    Connection c;
    synchronized (this) {
      closed = true;
      c = idle;
      idle = null;
    }
    SQLException failure = null;
    for (Connection open : inUse) {
      inUse.remove(open);
      SQLException closing = new SQLException("closing the store");
      close(open, closing);
      if (closing.getSuppressed().length > 0) {
        failure = closing;
      }
    }
    if (c != null) {
      close(c, new IllegalStateException("closing the store"));
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Closes the kept connection, if any: the next use opens another (for tests). */
  void dropIdle() {
    Connection c;
    synchronized (this) {
      c = idle;
      idle = null;
    }
    if (c != null) {
      close(c, new IllegalStateException("dropped"));
    }
  }

  /**
   * @return true while a renewal connection is open, kept or in use (for tests)
   */
  synchronized boolean isOpen() {
    return idle != null || !inUse.isEmpty();
  }

  /**
   * @return what the renewals use, for the setup's log line
   */
  RenewalSource source() {
    return source;
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
