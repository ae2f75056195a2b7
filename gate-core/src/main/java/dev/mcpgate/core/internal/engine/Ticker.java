package dev.mcpgate.core.internal.engine;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The engine's one source of elapsed time, and its only ways to wait: leases counted by this
 * process, back-offs, and the deadlines of store calls handed to another thread. {@link #SYSTEM} in
 * every gate; a deterministic simulation gives its own, so that one seed decides every timing.
 */
public interface Ticker {
  /** {@link System#nanoTime()}, {@link Thread#sleep}, and {@link Future#get(long, TimeUnit)}. */
  Ticker SYSTEM =
      new Ticker() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
          TimeUnit.NANOSECONDS.sleep(nanos);
        }

        @Override
        public <T> T await(Future<T> future, long nanos)
            throws InterruptedException, ExecutionException, TimeoutException {
          return future.get(nanos, TimeUnit.NANOSECONDS);
        }
      };

  /**
   * @return a monotonic time in nanoseconds, meaningful only as a difference to another
   */
  long nanoTime();

  /**
   * Waits {@code nanos}.
   *
   * @throws InterruptedException if the thread is interrupted meanwhile
   */
  void sleep(long nanos) throws InterruptedException;

  /**
   * Waits up to {@code nanos} for {@code future}.
   *
   * @return its value
   */
  <T> T await(Future<T> future, long nanos)
      throws InterruptedException, ExecutionException, TimeoutException;
}
