package dev.mcpgate.core.purge;

import dev.mcpgate.core.spi.DaemonThreads;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the rows of expired claims, every interval, on a daemon thread of its own (or a scheduler
 * of the caller's): in batches ({@link IdempotencyStore#purgeExpired}), until a batch comes back
 * short. A failure is logged (at WARN; an {@link Error} at ERROR) and the next round tries again.
 * Nothing depends on it for correctness (an expired row never blocks a claim); it keeps the claims
 * table from growing without end. Stores that expire rows by themselves (Redis keys, DynamoDB TTL)
 * need none.
 *
 * <pre>{@code
 * ClaimPurger purger = ClaimPurger.start(store, Duration.ofMinutes(5), 500);
 * ...
 * purger.close();   // on shutdown
 * }</pre>
 */
public final class ClaimPurger implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimPurger.class);

  private final IdempotencyStore store;
  private final int batchSize;
  private final Duration interval;
  private final ScheduledExecutorService scheduler;
  private final boolean ownScheduler;
  private final ScheduledFuture<?> rounds;

  /**
   * @param store the claims to purge
   * @param interval the time between rounds, positive
   * @param batchSize the most rows one purge call deletes, at least 1
   * @return a purger whose first round runs after one interval
   * @throws IllegalArgumentException naming an interval or batch size out of range
   */
  public static ClaimPurger start(IdempotencyStore store, Duration interval, int batchSize) {
    return start(store, interval, batchSize, null);
  }

  /**
   * @param store the claims to purge
   * @param interval the time between rounds, positive
   * @param batchSize the most rows one purge call deletes, at least 1
   * @param scheduler where the rounds run, the caller's to stop ({@link #close()} only cancels the
   *     rounds); null for a daemon thread of the purger's own ({@code mcpgate-purge-1}), which
   *     {@link #close()} stops. A round waits on the store: give it no work that must not wait.
   * @return a purger whose first round runs after one interval
   * @throws IllegalArgumentException naming an interval or batch size out of range
   */
  public static ClaimPurger start(
      IdempotencyStore store,
      Duration interval,
      int batchSize,
      ScheduledExecutorService scheduler) {
    if (store == null) {
      throw new NullPointerException("store must not be null");
    }
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the purge interval must be positive, was " + interval);
    }
    if (batchSize < 1) {
      throw new IllegalArgumentException(
          "the purge batch size must be at least 1, was " + batchSize);
    }
    return new ClaimPurger(store, interval, batchSize, scheduler);
  }

  private ClaimPurger(
      IdempotencyStore store, Duration interval, int batchSize, ScheduledExecutorService given) {
    this.store = store;
    this.interval = interval;
    this.batchSize = batchSize;
    this.ownScheduler = given == null;
    this.scheduler =
        given != null
            ? given
            : Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("mcpgate-purge"));
    long ms = interval.toMillis();
    this.rounds = scheduler.scheduleWithFixedDelay(this::round, ms, ms, TimeUnit.MILLISECONDS);
  }

  /**
   * Runs one round now, on the calling thread.
   *
   * @return how many rows it deleted: batches until one comes back short
   */
  public int purgeOnce() {
    int total = 0;
    int deleted;
    do {
      deleted = store.purgeExpired(batchSize);
      total += deleted;
    } while (deleted >= batchSize && !Thread.currentThread().isInterrupted());
    return total;
  }

  private void round() {
    try {
      int deleted = purgeOnce();
      if (deleted > 0) {
        LOG.info("purged {} expired claim(s)", deleted);
      }
    } catch (RuntimeException e) {
      LOG.warn("could not purge expired claims; trying again in {}", interval, e);
    } catch (Error e) {
      // an Error escaping a scheduled round would cancel every later round, unlogged
      LOG.error("could not purge expired claims; trying again in {}", interval, e);
    }
  }

  /**
   * Stops the rounds: its own thread, waiting up to 5 s for a round under way; on a scheduler it
   * was given, cancels the rounds (interrupting one under way) and leaves the scheduler running.
   */
  @Override
  public void close() {
    if (!ownScheduler) {
      rounds.cancel(true);
      return;
    }
    scheduler.shutdownNow();
    try {
      if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("the purge thread did not stop within 5 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
