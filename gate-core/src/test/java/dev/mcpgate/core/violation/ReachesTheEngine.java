package dev.mcpgate.core.violation;

import dev.mcpgate.core.internal.engine.GateEngine;

/**
 * A class outside the engine and the facade that reaches into the engine: what {@code
 * EngineBoundariesTest} shows its rule catches. Test code only.
 */
final class ReachesTheEngine {
  private ReachesTheEngine() {}

  static String name(GateEngine engine) {
    return engine.toString();
  }
}
