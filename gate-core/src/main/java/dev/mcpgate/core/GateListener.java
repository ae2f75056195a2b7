package dev.mcpgate.core;

/**
 * Told of every decision of a gate, synchronously on the calling thread. A listener that throws
 * does not change the outcome: the gate logs its exception at WARN and goes on.
 */
@FunctionalInterface
public interface GateListener {

  /**
   * @param event the decision
   */
  void onEvent(GateEvent event);
}
