package dev.mcpgate.core.spi;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads MCP Gate starts when it is given no executor of the caller's: daemons named {@code
 * <prefix>-1}, {@code <prefix>-2}, ..., counted per factory (no state shared across the JVM). Every
 * thread the gate, its purger and the stores MCP Gate ships start comes from one of these, and each
 * of them takes an executor of the caller's instead ({@code IdempotencyGate.Builder.executor},
 * say); a store of its own can use it for the same.
 *
 * <pre>{@code
 * ExecutorService pool = Executors.newCachedThreadPool(DaemonThreads.named("acme-renewals"));
 * }</pre>
 */
public final class DaemonThreads implements ThreadFactory {
  private final String prefix;
  private final AtomicInteger made = new AtomicInteger();

  private DaemonThreads(String prefix) {
    this.prefix = prefix;
  }

  /**
   * @param prefix what the threads are for, as in {@code "mcpgate-lease-renewal"}
   * @return a factory of daemon threads with that prefix
   * @throws IllegalArgumentException if the prefix is null or blank
   */
  public static DaemonThreads named(String prefix) {
    if (prefix == null || prefix.isBlank()) {
      throw new IllegalArgumentException("a thread name prefix must not be blank, was " + prefix);
    }
    return new DaemonThreads(prefix);
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread t = new Thread(task, prefix + "-" + made.incrementAndGet());
    t.setDaemon(true);
    return t;
  }
}
