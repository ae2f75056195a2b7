package dev.mcpgate.spring;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.micrometer.GateMetrics;
import dev.mcpgate.micrometer.GateObservations;
import dev.mcpgate.micrometer.MeteredStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Adds gate-micrometer's listeners for the application's meter and observation registries, when it
 * has them (Spring Boot's actuator makes them). Loaded only with gate-micrometer.
 */
final class MicrometerListeners {
  private MicrometerListeners() {}

  static void add(IdempotencyGate.Builder gate, ListableBeanFactory beans, IdempotencyStore store) {
    String name = storeName(store);
    MeterRegistry meters = beans.getBeanProvider(MeterRegistry.class).getIfAvailable();
    if (meters != null) {
      gate.listener(GateMetrics.of(meters, name));
    }
    ObservationRegistry observations =
        beans.getBeanProvider(ObservationRegistry.class).getIfAvailable();
    if (observations != null) {
      gate.listener(GateObservations.of(observations, name));
    }
  }

  /**
   * @return the store, timed as {@code mcpgate.store.operations} on the application's meter
   *     registry when it has one; else the store itself
   */
  static IdempotencyStore timed(IdempotencyStore store, ListableBeanFactory beans) {
    MeterRegistry meters = beans.getBeanProvider(MeterRegistry.class).getIfAvailable();
    return meters == null ? store : MeteredStore.of(store, meters, storeName(store));
  }

  /** {@code jdbc}, {@code dynamodb}, {@code redis}, {@code inmemory}: the store class's name. */
  static String storeName(IdempotencyStore store) {
    String name = store.getClass().getSimpleName().replace("IdempotencyStore", "");
    return name.isEmpty() ? "custom" : name.toLowerCase(Locale.ROOT);
  }
}
