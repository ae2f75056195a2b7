package dev.mcpgate.core;

/**
 * Told of every decision of a gate, synchronously on the calling thread (a renewal's, on the gate's
 * renewal thread, its lease group held meanwhile). A listener that throws does not change the
 * outcome: the gate logs its exception at WARN and goes on. Keep it quick, and never close the gate
 * from it: a close waits for running calls while their leases are renewed, and from a renewal event
 * it would hold up the renewals it waits on.
 */
@FunctionalInterface
public interface GateListener {

  /**
   * @param event the decision
   */
  void onEvent(GateEvent event);
}
