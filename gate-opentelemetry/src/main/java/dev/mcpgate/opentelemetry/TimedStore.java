package dev.mcpgate.opentelemetry;

import static dev.mcpgate.opentelemetry.Instruments.OPERATION;
import static dev.mcpgate.opentelemetry.Instruments.OUTCOME;
import static dev.mcpgate.opentelemetry.Instruments.STORE;

import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TimedIdempotencyStore;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;

/**
 * Times every store operation in {@code mcpgate.store.operations}, with the operation's name and
 * {@code success} or {@code error}; nothing of the request (tenant, key, arguments, token) goes
 * into an attribute.
 */
final class TimedStore extends TimedIdempotencyStore {
  private final DoubleHistogram operations;
  private final String store;

  TimedStore(IdempotencyStore delegate, OpenTelemetry openTelemetry, String store) {
    super(delegate);
    this.store = store;
    operations =
        Instruments.meter(openTelemetry)
            .histogramBuilder("mcpgate.store.operations")
            .setUnit("s")
            .setDescription("Store round trips of the gate, by operation and outcome")
            .setExplicitBucketBoundariesAdvice(Instruments.SECONDS_BUCKETS)
            .build();
  }

  @Override
  protected void record(String operation, boolean succeeded, long nanos) {
    operations.record(
        Instruments.seconds(nanos),
        Attributes.of(
            OPERATION, operation, OUTCOME, succeeded ? "success" : "error", STORE, store));
  }
}
