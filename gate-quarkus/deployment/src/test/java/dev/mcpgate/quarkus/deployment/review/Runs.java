package dev.mcpgate.quarkus.deployment.review;

import java.util.Properties;

/**
 * Run counters shared by the test's and the application's class loaders: plain String system
 * properties (Narayana copies the system properties and fails on a value that is not a String).
 */
final class Runs {
  private Runs() {}

  static int inc(String name) {
    Properties p = System.getProperties();
    synchronized (p) {
      int n = get(name) + 1;
      p.setProperty("review-n-runs." + name, Integer.toString(n));
      return n;
    }
  }

  static int get(String name) {
    String v = System.getProperty("review-n-runs." + name);
    return v == null ? 0 : Integer.parseInt(v);
  }
}
