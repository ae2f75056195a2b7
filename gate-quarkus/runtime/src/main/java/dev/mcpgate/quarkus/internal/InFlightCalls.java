package dev.mcpgate.quarkus.internal;

import jakarta.inject.Singleton;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * The gated calls in flight, so that the application stops without closing the gate under them:
 * once {@link #drain} began, a new gated call is refused before anything runs, and the drain waits,
 * bounded, for those already running (their leases renewed meanwhile).
 */
@Singleton
public class InFlightCalls {
  private static final Logger LOG = Logger.getLogger(InFlightCalls.class);

  private int running;
  private boolean closing;

  /**
   * @return true when the call may run (then {@link #exit()} when it ends); false once the
   *     application is stopping
   */
  synchronized boolean enter() {
    if (closing) {
      return false;
    }
    running++;
    return true;
  }

  synchronized void exit() {
    running--;
    if (running == 0) {
      notifyAll();
    }
  }

  /**
   * Refuses new calls from now on and waits until no call is in flight, or the timeout ran out.
   *
   * @param timeout the longest wait
   * @return how many calls are still in flight
   */
  synchronized int drain(Duration timeout) {
    closing = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean interrupted = false;
    if (running > 0) {
      LOG.infof(
          "MCP Gate: waiting (at most %s) for %d gated calls in flight before it closes",
          timeout, running);
    }
    while (running > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        interrupted = true;
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return running;
  }
}
