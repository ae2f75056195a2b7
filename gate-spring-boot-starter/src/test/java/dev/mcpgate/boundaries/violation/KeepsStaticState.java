package dev.mcpgate.boundaries.violation;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps state per JVM in static fields, which {@code NoStaticStateTest}'s rule must report. A test
 * class: never in a jar, and outside what the rule is checked against.
 */
public final class KeepsStaticState {
  private static final Map<String, Object> RUNNING = new ConcurrentHashMap<>();
  private static int calls;

  private KeepsStaticState() {}

  static void remember(String key, Object value) {
    calls++;
    RUNNING.put(key, value);
  }
}
