package dev.mcpgate.core;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells a gate's listeners of each decision; a failing listener is logged, never propagated. */
final class Events {
  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyGate.class);

  private final List<GateListener> listeners;

  Events(List<GateListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  void emit(GateEvent.Type type, ClaimId id, int attempt, String message, Throwable error) {
    if (!listeners.isEmpty()) {
      publish(new GateEvent(type, id, attempt, null, message, error));
    }
  }

  void refused(ClaimOutcome.Refused refused, int attempt) {
    if (!listeners.isEmpty()) {
      publish(new GateEvent(GateEvent.Type.REFUSED, refused.id(), attempt, refused.reason(),
          refused.message(), null));
    }
  }

  private void publish(GateEvent event) {
    for (GateListener listener : listeners) {
      try {
        listener.onEvent(event);
      } catch (RuntimeException e) {
        LOG.warn("gate listener {} failed on {} {}", listener, event.type(), event.id(), e);
      }
    }
  }
}
