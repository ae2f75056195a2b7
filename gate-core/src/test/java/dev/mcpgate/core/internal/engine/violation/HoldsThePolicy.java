package dev.mcpgate.core.internal.engine.violation;

import dev.mcpgate.core.GatePolicy;

/**
 * An engine class that keeps a policy in a field: what {@code OneEnginePerGateTest} shows its
 * policy rule catches. Test code only; never imported with main classes.
 */
final class HoldsThePolicy {
  private final GatePolicy policy;

  HoldsThePolicy(GatePolicy policy) {
    this.policy = policy;
  }

  GatePolicy policy() {
    return policy;
  }
}
