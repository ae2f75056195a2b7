package dev.mcpgate.boundaries.violation;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Starts threads nobody can inject or name, which {@code LibraryThreadsTest}'s rules must report. A
 * test class: never in a jar, and outside what the rules are checked against.
 */
public final class StartsItsOwnThreads {
  private StartsItsOwnThreads() {}

  static Thread writer(Runnable task) {
    return new Thread(task, "writer");
  }

  static ExecutorService pool() {
    return Executors.newCachedThreadPool();
  }
}
