package dev.mcpgate.dynamodb;

import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.HeldLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gate's batched renewals ({@code extendLeases}). DynamoDB has no multi-item conditional write
 * that reports per item ({@code TransactWriteItems} is all or nothing, and one lost lease would
 * fail every other), so each lease is extended by its own conditional {@code UpdateItem} ({@link
 * LeaseWrites}), sent concurrently by a small pool of threads owned by the store: a renewal of n
 * leases costs n requests, in about n / concurrency request latencies. Its threads are daemons, end
 * after a minute idle, and are shut down by {@link #close()}.
 */
final class Renewals implements AutoCloseable {
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final LeaseWrites writes;
  private final Requests requests;
  private final ThreadPoolExecutor pool;

  Renewals(LeaseWrites writes, Requests requests, int concurrency) {
    this.writes = writes;
    this.requests = requests;
    int poolNumber = POOLS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            concurrency,
            concurrency,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t =
                  new Thread(
                      r,
                      "mcpgate-dynamodb-renewal-" + poolNumber + "-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Extends every lease to {@code leaseEndMs}, concurrently, waiting at most {@code within}.
   *
   * @return the tokens whose leases were extended
   * @throws StoreUnavailableException if any request failed (after waiting for all of them), or the
   *     store was closed: which leases were extended is then not told
   */
  Set<LeaseToken> extend(List<HeldLease> leases, long leaseEndMs, Duration within) {
    if (pool.isShutdown()) {
      throw closed(null);
    }
    Set<LeaseToken> extended = new HashSet<>();
    if (leases.size() == 1) {
      HeldLease held = leases.get(0);
      if (writes.extend(requests, held.id(), held.token(), leaseEndMs)) {
        extended.add(held.token());
      }
      return extended;
    }
    List<Future<Boolean>> sent = new ArrayList<>(leases.size());
    try {
      for (HeldLease held : leases) {
        sent.add(pool.submit(() -> writes.extend(requests, held.id(), held.token(), leaseEndMs)));
      }
    } catch (RejectedExecutionException rejected) {
      sent.forEach(f -> f.cancel(false));
      throw closed(rejected);
    }
    StoreUnavailableException failure = null;
    // a slow or throttled request must not hold the other leases' renewals past half a lease:
    // they are all sent again next period
    long deadline = System.nanoTime() + within.toNanos();
    for (int i = 0; i < sent.size(); i++) {
      try {
        if (sent.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          extended.add(leases.get(i).token());
        }
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (failure == null) {
          failure =
              cause instanceof StoreUnavailableException s
                  ? s
                  : new StoreUnavailableException(
                      "could not extend leases in DynamoDB table " + requests.table + ": " + cause,
                      cause);
        } else if (failure != cause) {
          failure.addSuppressed(cause);
        }
      } catch (TimeoutException e) {
        sent.forEach(f -> f.cancel(false));
        throw new StoreUnavailableException(
            "extending "
                + leases.size()
                + " leases in DynamoDB"
                + " table "
                + requests.table
                + " took longer than "
                + within.toMillis()
                + " ms; they"
                + " are renewed again next period",
            e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        sent.forEach(f -> f.cancel(false));
        throw new StoreUnavailableException(
            "interrupted while extending leases in DynamoDB" + " table " + requests.table, e);
      }
    }
    if (failure != null) {
      throw failure;
    }
    return extended;
  }

  private StoreUnavailableException closed(Throwable cause) {
    return new StoreUnavailableException(
        "the DynamoDB store of table "
            + requests.table
            + " is closed: its leases are no longer extended",
        cause);
  }

  /** Stops the threads; renewals still queued are not sent. */
  @Override
  public void close() {
    pool.shutdownNow();
  }
}
