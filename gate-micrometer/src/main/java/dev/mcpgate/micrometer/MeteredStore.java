package dev.mcpgate.micrometer;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TimedIdempotencyStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Times every store operation: {@code mcpgate.store.operations} (timer; tags {@code operation} =
 * {@code claim}, {@code complete}, {@code release}, {@code extend}, {@code extend_many} (the gate's
 * renewals), {@code mark_unknown}, {@code find}, {@code purge}; {@code outcome} = {@code success}
 * or {@code error}; {@code store}). A claim's latency is most of what a replay costs, so this is
 * the timer to watch; a rising {@code error} rate is a store going away.
 */
public final class MeteredStore extends TimedIdempotencyStore {
  private final MeterRegistry registry;
  private final String store;

  private MeteredStore(IdempotencyStore delegate, MeterRegistry registry, String store) {
    super(delegate);
    this.registry = registry;
    this.store = store;
  }

  /**
   * @param delegate the store to time
   * @param registry where the timer goes
   * @param store the store's name for the {@code store} tag
   * @return the timed store
   */
  public static MeteredStore of(IdempotencyStore delegate, MeterRegistry registry, String store) {
    return new MeteredStore(
        requireNonNull(delegate, "delegate must not be null"),
        requireNonNull(registry, "registry must not be null"),
        requireNonNull(store, "store must not be null"));
  }

  @Override
  protected void record(String operation, boolean succeeded, long nanos) {
    Timer.builder("mcpgate.store.operations")
        .tag("operation", operation)
        .tag("outcome", succeeded ? "success" : "error")
        .tag("store", store)
        .register(registry)
        .record(Duration.ofNanos(nanos));
  }
}
