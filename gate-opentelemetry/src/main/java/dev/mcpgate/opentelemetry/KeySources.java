package dev.mcpgate.opentelemetry;

import dev.mcpgate.core.GateEvent;

/**
 * The key-source attribute value the instruments and the span share (the outcome is gate-core's
 * {@link GateEvent#outcome()}, as gate-micrometer uses it).
 */
final class KeySources {
  private KeySources() {}

  /**
   * @return where the call's key came from, {@code none} when the caller did not say
   */
  static String of(GateEvent e) {
    return e.keySource() == null ? "none" : e.keySource();
  }
}
