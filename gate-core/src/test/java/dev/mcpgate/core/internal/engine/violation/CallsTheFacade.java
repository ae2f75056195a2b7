package dev.mcpgate.core.internal.engine.violation;

import dev.mcpgate.core.IdempotencyGate;

/**
 * A class in the engine's package tree that calls back up to the facade: what {@code
 * EngineBoundariesTest} shows its rule catches. Test code only; never imported with main classes.
 */
final class CallsTheFacade {
  private CallsTheFacade() {}

  static boolean closes(IdempotencyGate gate) {
    gate.close();
    return true;
  }
}
