package dev.mcpgate.benchmarks.throughput;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Runs one action on a number of threads until a deadline (or until told to stop), and records each
 * call's latency: calls per second, p50 and p99.
 */
final class TimedLoad {
  private TimedLoad() {}

  /** One call; {@code i} counts the calls of the load from 0, across its threads. */
  interface Call {
    void run(long i) throws Exception;
  }

  /** What a load measured. */
  record Result(long calls, double seconds, double p50Ms, double p99Ms) {
    double perSecond() {
      return calls / seconds;
    }
  }

  /**
   * @param first the first {@code i} handed to a call (so that keys go on across loads)
   * @param stop checked before each call: true ends the load before its deadline
   */
  static Result run(
      int threads, double seconds, AtomicLong sequence, Call call, BooleanSupplier stop)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<long[]>> workers = new ArrayList<>();
    long[] bounds = new long[1];
    for (int t = 0; t < threads; t++) {
      workers.add(
          pool.submit(
              () -> {
                start.await();
                long[] latencies = new long[1024];
                int n = 0;
                while (System.nanoTime() < bounds[0] && !stop.getAsBoolean()) {
                  long i = sequence.getAndIncrement();
                  long began = System.nanoTime();
                  call.run(i);
                  if (n == latencies.length) {
                    latencies = Arrays.copyOf(latencies, n * 2);
                  }
                  latencies[n++] = System.nanoTime() - began;
                }
                return Arrays.copyOf(latencies, n);
              }));
    }
    long began = System.nanoTime();
    bounds[0] = began + (long) (seconds * 1e9);
    start.countDown();
    long[] all = new long[0];
    for (Future<long[]> worker : workers) {
      long[] part = worker.get();
      int at = all.length;
      all = Arrays.copyOf(all, at + part.length);
      System.arraycopy(part, 0, all, at, part.length);
    }
    double elapsed = (System.nanoTime() - began) / 1e9;
    pool.shutdown();
    Arrays.sort(all);
    return new Result(all.length, elapsed, quantile(all, 0.50), quantile(all, 0.99));
  }

  private static double quantile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
  }
}
