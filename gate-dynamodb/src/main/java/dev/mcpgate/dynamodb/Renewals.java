package dev.mcpgate.dynamodb;

import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.DaemonThreads;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The gate's batched renewals ({@code extendLeases}). DynamoDB has no multi-item conditional write
 * that reports per item ({@code TransactWriteItems} is all or nothing, and one lost lease would
 * fail every other), so each lease is extended by its own conditional {@code UpdateItem} ({@link
 * LeaseWrites#extendForward}), sent concurrently: a renewal of n leases costs n requests, in about
 * n / concurrency request latencies.
 *
 * <p>Every call, of one lease or many, has a deadline ({@code within}): each request carries what
 * is left of it as its SDK API call timeout (which covers connecting, the SDK's retries and every
 * read, and aborts the HTTP connection it times out on, so that connection is not used again), a
 * lease not yet sent when it passes is not sent, and the call returns by then with what it knows: a
 * lease whose request answered is extended or no longer held; one whose request failed or did not
 * answer is undecided. Each call sends its leases on up to {@code concurrency} threads of its own
 * (the caller's executor, or daemons from the store's pool, which end after a minute idle), so a
 * call is never queued behind the requests of an earlier one that ran late. {@link #close()} stops
 * the store's pool; later calls fail.
 */
final class Renewals implements AutoCloseable {
  private final LeaseWrites writes;
  private final Requests requests;
  private final int concurrency;
  private final Executor pool;
  private final ThreadPoolExecutor own; // null when the caller gave the executor
  private volatile boolean closed;

  /**
   * @param executor the caller's, which {@link #close()} does not stop; null for daemon threads of
   *     the store's own
   */
  Renewals(LeaseWrites writes, Requests requests, int concurrency, Executor executor) {
    this.writes = writes;
    this.requests = requests;
    this.concurrency = concurrency;
    this.own =
        executor != null
            ? null
            : new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                60,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                DaemonThreads.named("mcpgate-dynamodb-renewal"));
    this.pool = executor != null ? executor : own;
  }

  /**
   * Extends every lease to {@code leaseEndMs} (never moving one back), concurrently, within {@code
   * within}.
   *
   * @return the leases extended (or already held past the end), and those undecided; any other is
   *     no longer held (none for no leases, without a request)
   * @throws StoreUnavailableException if the store was closed, or no lease was settled in time (all
   *     of them are then undecided)
   */
  ExtendedLeases extend(List<HeldLease> leases, long leaseEndMs, Duration within) {
    if (leases.isEmpty()) {
      return ExtendedLeases.of(Set.of());
    }
    long deadline = System.nanoTime() + within.toNanos();
    int n = leases.size();
    AtomicReferenceArray<Object> outcomes = new AtomicReferenceArray<>(n); // Boolean or failure
    ConcurrentLinkedQueue<Integer> unsent = new ConcurrentLinkedQueue<>();
    for (int i = 0; i < n; i++) {
      unsent.add(i);
    }
    CountDownLatch settled = new CountDownLatch(n);
    Runnable sender =
        () -> {
          Integer i;
          while ((i = unsent.poll()) != null) {
            HeldLease held = leases.get(i);
            long left = deadline - System.nanoTime();
            try {
              if (left <= 0) {
                continue; // out of time: not sent, undecided
              }
              outcomes.set(
                  i,
                  writes.extendForward(
                      requests, held.id(), held.token(), leaseEndMs, Duration.ofNanos(left)));
            } catch (RuntimeException e) {
              outcomes.set(i, e);
            } finally {
              settled.countDown();
            }
          }
        };
    if (closed) {
      throw closed(null);
    }
    int started = 0;
    try {
      for (; started < Math.min(concurrency, n); started++) {
        pool.execute(sender);
      }
    } catch (RejectedExecutionException rejected) {
      if (started == 0) {
        throw closed || own != null
            ? closed(rejected)
            : new StoreUnavailableException(
                "the renewal executor refused the lease extensions of table "
                    + requests.table
                    + ": nothing was sent, the leases are not extended",
                rejected);
      }
      // closed meanwhile: the senders already started send the rest
    }
    try {
      settled.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // what is settled is told, the rest is undecided
    }
    unsent.clear(); // a lease not sent by now is not sent
    Set<LeaseToken> extended = new HashSet<>();
    Set<LeaseToken> undecided = new HashSet<>();
    RuntimeException failure = null;
    boolean anySettled = false;
    for (int i = 0; i < n; i++) {
      Object outcome = outcomes.get(i);
      LeaseToken token = leases.get(i).token();
      if (outcome instanceof Boolean held) {
        anySettled = true;
        if (held) {
          extended.add(token);
        }
      } else {
        undecided.add(token);
        if (outcome instanceof RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else if (failure != e) {
            failure.addSuppressed(e);
          }
        }
      }
    }
    if (!anySettled) {
      throw new StoreUnavailableException(
          "could not extend "
              + n
              + (n == 1 ? " lease" : " leases")
              + " in DynamoDB table "
              + requests.table
              + " within "
              + within.toMillis()
              + " ms"
              + (failure == null ? "" : ": " + failure.getMessage()),
          failure);
    }
    return new ExtendedLeases(extended, undecided);
  }

  private StoreUnavailableException closed(Throwable cause) {
    return new StoreUnavailableException(
        "the DynamoDB store of table "
            + requests.table
            + " is closed: its leases are no longer extended",
        cause);
  }

  /** Whether the extensions are sent from the caller's executor (the builder's renewalExecutor). */
  boolean runsOnCallersExecutor() {
    return own == null;
  }

  /** Stops the threads; renewals not yet sent are not sent. */
  @Override
  public void close() {
    closed = true;
    if (own != null) {
      own.shutdownNow();
    }
  }
}
