package dev.mcpgate.quarkus.internal;

import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.micrometer.GateMetrics;
import dev.mcpgate.micrometer.MeteredStore;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.Locale;

/**
 * The gate's metrics ({@code mcpgate.calls}, {@code mcpgate.store.operations} and the others of
 * gate-micrometer) on the application's Micrometer registry; registered by the deployment module
 * only when the application has quarkus-micrometer.
 */
@Singleton
public class MicrometerMetrics implements StoreMetrics {
  private final MeterRegistry registry;

  MicrometerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public IdempotencyStore timed(IdempotencyStore store) {
    return MeteredStore.of(store, registry, name(store));
  }

  @Override
  public GateListener listener(IdempotencyStore store) {
    return GateMetrics.of(registry, name(store));
  }

  /**
   * {@code jdbc}, {@code inmemory}: the store class's name, as the Spring Boot starter names it.
   */
  private static String name(IdempotencyStore store) {
    String name = store.getClass().getSimpleName().replace("IdempotencyStore", "");
    return name.isEmpty() ? "custom" : name.toLowerCase(Locale.ROOT);
  }
}
