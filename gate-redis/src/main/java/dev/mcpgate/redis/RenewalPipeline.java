package dev.mcpgate.redis;

import dev.mcpgate.core.spi.DaemonThreads;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The renewals' own connection, which no tool's command shares: it runs one script per key ({@code
 * EVALSHA}, one key each, so every script stays in its key's slot in Redis Cluster) as one
 * pipeline: every script is sent before any answer is awaited, so that a renewal of n leases is one
 * round trip. On one server the scripts are also written and flushed together. On a cluster
 * connection each script is written as it is sent (Lettuce routes it to its slot's node, opening
 * that node's connection on demand, which a held-back flush could strand); the nodes answer in
 * parallel, so the batch still costs one round trip. A node that does not know the script yet (a
 * restart, a failover, {@code SCRIPT FLUSH}) is sent the keys it refused once more as {@code EVAL},
 * which runs and caches the script there: a second round trip; so is a key whose command Lettuce
 * rejected unsent while it was still connecting that node ({@link ScriptRunner#notSent}), once the
 * connection's nodes are connected.
 *
 * <p>Every call has a deadline ({@code within}) that bounds every wait it makes: for the connection
 * to be opened, and for the answers. A key that did not answer by then, or whose command failed, is
 * left undecided (null) while the keys that did answer are returned: one slow node of a cluster
 * does not hold the renewals of the others. A call whose answers did not all come in time, or whose
 * connection failed, marks the connection failed; the next call uses a fresh one, never one whose
 * pipeline may be stuck behind a hung server or a black-holed network path. On one server the
 * failed connection is dropped at once. A cluster connection is replaced only once its successor
 * has opened: opening one reads the topology from the nodes, which can take longer than a call's
 * deadline while one of them is silent (a seed, or every node on a client that refreshes from all
 * of them), so meanwhile a call waits for the successor half its time and then uses the failed
 * connection, whose other nodes still answer. Calls run concurrently, never one behind another:
 * while a connection is good they share it; a new one is opened on a thread of this pipeline's (at
 * most {@value #MAX_OPENING} at once), which the calls wait on only until their deadlines; a
 * connection that is opened after every call waiting for it gave up is kept, and taken at once by
 * the calls waiting then (for another opening), or by the next call. An opening past its call's
 * deadline may hang: the next call starts another, whether or not it has a failed connection to
 * fall back on. A call whose deadline has passed takes no connection (it would only time out on it
 * and mark it failed). A connection replaced or dropped is closed once no call uses it. The
 * connection names itself {@value #CLIENT_NAME} ({@code CLIENT SETNAME}; on a cluster, on every
 * node connection).
 */
final class RenewalPipeline implements AutoCloseable {

  /** The name the renewal connection gives itself, for {@code CLIENT LIST}. */
  static final String CLIENT_NAME = "mcpgate-renewals";

  /** The most connections being opened at once (those a past call gave up on included). */
  static final int MAX_OPENING = 4;

  private final Supplier<RenewalLink> opener;
  private final ThreadPoolExecutor opening;
  private final Object lock = new Object();
  private RenewalLink inUse; // guarded by lock: the connection the calls use, or null
  private boolean stale; // guarded by lock: a call failed on inUse (a cluster's): replace it
  private Opening pending; // guarded by lock: a connection being opened, or null
  private boolean closed; // guarded by lock

  /**
   * @param opener opens one renewal connection (blocking; Lettuce bounds it by its connect and
   *     command timeouts); run on the pipeline's own threads
   */
  RenewalPipeline(Supplier<RenewalLink> opener) {
    this.opener = opener;
    this.opening =
        new ThreadPoolExecutor(
            0,
            MAX_OPENING,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            DaemonThreads.named("mcpgate-redis-renewal-connect"));
  }

  /** A connection being opened, for a call whose deadline it was. */
  private static final class Opening {
    final CompletableFuture<RenewalLink> link = new CompletableFuture<>();
    final long deadlineNanos;
    boolean settled; // guarded by lock: its outcome was acted on

    Opening(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
    }
  }

  /**
   * @return the link {@code f} opened, or null while it is being opened or when it failed
   */
  private static RenewalLink ready(CompletableFuture<RenewalLink> f) {
    return f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
  }

  /**
   * Runs {@code script} once per key, with that key's arguments, in one pipeline, within {@code
   * within}.
   *
   * @return each key's integer reply, in the keys' order; null for a key that did not answer in
   *     time, or whose command failed: which of those ran is not known
   * @throws RedisException if nothing could be asked (no connection within the deadline, the
   *     pipeline is closed), or no key answered
   */
  Long[] run(ScriptRunner.Script script, List<byte[]> keys, List<byte[][]> args, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    RenewalLink link = acquire(deadline, within);
    try {
      return link.run(script, keys, args, deadline, within, () -> failed(link));
    } finally {
      release(link);
    }
  }

  /**
   * The connection to use now, counted as used until {@link #release}: the one in use while it is
   * good, else a fresh one, opened on the pipeline's thread and waited for until the deadline; any
   * connection that opens meanwhile (one opened for an earlier call) is taken at once. While a
   * fresh one is opened to replace a cluster connection that failed a call (one node silent), a
   * call waits for it half the time left and then uses the old one: its other nodes still answer.
   */
  private RenewalLink acquire(long deadline, Duration within) {
    Opening wait;
    long now = System.nanoTime();
    synchronized (lock) {
      if (closed) {
        throw new RedisException("the store is closed: its leases are no longer extended");
      }
      if (inUse != null && !inUse.isOpen()) {
        drop(); // closed under it (a client shut down, say)
      }
      if (inUse != null && !stale) {
        inUse.users++;
        return inUse;
      }
      boolean fallback = inUse != null;
      // an opening past the deadline of the call that asked for it may hang (its handshake sent
      // into a black hole that new connections no longer meet): another is started (at most
      // MAX_OPENING at once), with a failed connection to fall back on or without; the late one is
      // kept if it opens first
      if (pending == null || now - pending.deadlineNanos > 0) {
        try {
          pending = open(deadline);
        } catch (RedisConnectionException busy) {
          if (!fallback) {
            throw busy;
          }
          inUse.users++;
          return inUse; // the failed cluster connection, its other nodes still answering
        }
      }
      wait = pending;
      long until = fallback ? now + (deadline - now) / 2 : deadline;
      // waits for a good connection: the one this call opens, or any other that opens meanwhile
      // (one opened for an earlier call that gave up on it); settle wakes the waiting calls
      while (true) {
        settle(wait);
        if (closed) {
          throw new RedisException("the store is closed: its leases are no longer extended");
        }
        long t = System.nanoTime();
        boolean waited = wait.link.isDone() || t - until >= 0;
        if (t - deadline >= 0) {
          break; // no time left to ask anything: a connection taken now would be marked failed
        }
        if (inUse != null && inUse.isOpen() && (!stale || waited)) {
          inUse.users++;
          return inUse; // the fresh one, or the failed cluster connection while it is opened
        }
        if (waited) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, until - t);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RedisCommandInterruptedException(e);
        }
      }
    }
    Throwable why = null;
    if (wait.link.isCompletedExceptionally()) {
      try {
        wait.link.join();
      } catch (CompletionException e) {
        why = e.getCause();
      } catch (CancellationException e) {
        why = e;
      }
    }
    if (why instanceof RedisException redis) {
      throw redis;
    }
    if (why == null) {
      throw new RedisConnectionException(
          "could not open a connection to Redis for lease renewals within "
              + within.toMillis()
              + " ms");
    }
    throw new RedisConnectionException(
        "could not open a connection to Redis for lease renewals: " + why, why);
  }

  /** A call is done with {@code link}: closed now if it was retired meanwhile. */
  private void release(RenewalLink link) {
    synchronized (lock) {
      link.users--;
      if (link.retired && link.users == 0) {
        link.close();
      }
    }
  }

  /**
   * A call on {@code link} timed out or failed. One server's connection is dropped: the next call
   * opens a fresh one. A cluster connection is kept until a fresh one has opened: a node that does
   * not answer leaves only its own keys undecided, and opening a cluster connection asks the nodes
   * for the topology, which can take longer than a call's deadline while one of them is silent.
   */
  private void failed(RenewalLink link) {
    synchronized (lock) {
      if (link != inUse) {
        return; // replaced or dropped already
      }
      if (!link.heldFlush && link.isOpen()) {
        stale = true;
      } else {
        drop();
      }
    }
  }

  /** Stops using the connection in use. Under the lock. */
  private void drop() {
    RenewalLink l = inUse;
    inUse = null;
    stale = false;
    retire(l);
  }

  /** Closes {@code link} once no call uses it. Under the lock. */
  private static void retire(RenewalLink link) {
    link.retired = true;
    if (link.users == 0) {
      link.close();
    }
  }

  /**
   * Acts once on the outcome of {@code o}, if it has one: a connection that opened replaces one
   * that is gone or failed a call; one opened late while a good one is in use is closed. Under the
   * lock.
   */
  private void settle(Opening o) {
    if (o.settled || !o.link.isDone()) {
      return;
    }
    o.settled = true;
    lock.notifyAll(); // the calls waiting for a connection look again
    if (pending == o) {
      pending = null;
    }
    RenewalLink opened = ready(o.link);
    if (opened == null) {
      return; // it failed: the next call that needs one starts another
    }
    if (closed || (inUse != null && !stale && inUse.isOpen())) {
      opened.close();
      return;
    }
    if (inUse != null) {
      drop();
    }
    inUse = opened;
  }

  /** Starts opening a connection, on the pipeline's own thread. Under the lock. */
  private Opening open(long deadline) {
    Opening o = new Opening(deadline);
    o.link.whenComplete(
        (opened, failed) -> {
          synchronized (lock) {
            settle(o);
          }
        });
    try {
      opening.execute(
          () -> {
            try {
              o.link.complete(opener.get());
            } catch (Throwable t) {
              o.link.completeExceptionally(t);
            }
          });
    } catch (RejectedExecutionException busy) {
      throw new RedisConnectionException(
          MAX_OPENING + " connections to Redis for lease renewals are still being opened", busy);
    }
    return o;
  }

  /** Closes the connection, and one still being opened once it is. */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      if (inUse != null) {
        inUse.close();
        inUse = null;
      }
      // one being opened is closed by settle, which sees closed
      lock.notifyAll(); // the calls waiting for a connection give up at once
    }
    opening.shutdown();
  }
}
