package dev.mcpgate.micrometer;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Adds the gate's decision to the current observation (the tool call's span, when Spring Boot's
 * tracing or another Micrometer Observation bridge made one), rather than opening a second span, as
 * OpenTelemetry's MCP conventions ask of an instrumentation. On a call decision it adds:
 *
 * <ul>
 *   <li>{@code mcpgate.outcome} (low cardinality): as in {@link GateMetrics}'s {@code
 *       mcpgate.calls} ({@code rejected.*} for a call refused before the gate);
 *   <li>{@code mcpgate.ran} (low): {@code true} when the action runs in this call;
 *   <li>{@code mcpgate.store} (low): the store's name;
 *   <li>{@code mcpgate.key_source} (low): where the key came from, {@code none} if untold;
 *   <li>{@code mcpgate.attempt} (high cardinality): the attempt that runs, or whose result is
 *       replayed ({@code replayed-from attempt}).
 * </ul>
 *
 * Nothing is added where there is no current observation. No tenant, key or argument is added.
 */
public final class GateObservations implements GateListener {
  private final ObservationRegistry registry;
  private final String store;

  private GateObservations(ObservationRegistry registry, String store) {
    this.registry = registry;
    this.store = store;
  }

  /**
   * @param registry the registry whose current observation is enriched
   * @param store the store's name for {@code mcpgate.store}
   * @return the listener
   */
  public static GateObservations of(ObservationRegistry registry, String store) {
    return new GateObservations(
        requireNonNull(registry, "registry must not be null"),
        requireNonNull(store, "store must not be null"));
  }

  @Override
  public void onEvent(GateEvent e) {
    String outcome = e.outcome();
    Observation current = outcome == null ? null : registry.getCurrentObservation();
    if (current == null) {
      return;
    }
    current.lowCardinalityKeyValue("mcpgate.outcome", outcome);
    current.lowCardinalityKeyValue(
        "mcpgate.ran", Boolean.toString(e.type() == GateEvent.Type.ACQUIRED));
    current.lowCardinalityKeyValue("mcpgate.store", store);
    current.lowCardinalityKeyValue(
        "mcpgate.key_source", e.keySource() == null ? "none" : e.keySource());
    if (e.attempt() > 0) {
      current.highCardinalityKeyValue("mcpgate.attempt", Integer.toString(e.attempt()));
    }
  }
}
