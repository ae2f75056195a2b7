package dev.mcpgate.opentelemetry;

import static dev.mcpgate.opentelemetry.Instruments.OPERATION;
import static dev.mcpgate.opentelemetry.Instruments.OUTCOME;
import static dev.mcpgate.opentelemetry.Instruments.STORE;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Times every store operation in {@code mcpgate.store.operations}, with the operation's name and
 * {@code success} or {@code error}; nothing of the request (tenant, key, arguments, token) goes
 * into an attribute.
 */
final class TimedStore extends ForwardingIdempotencyStore {
  private final DoubleHistogram operations;
  private final String store;

  TimedStore(IdempotencyStore delegate, OpenTelemetry openTelemetry, String store) {
    super(delegate);
    this.store = store;
    operations = Instruments.meter(openTelemetry).histogramBuilder("mcpgate.store.operations")
        .setUnit("s").setDescription("Store round trips of the gate, by operation and outcome")
        .setExplicitBucketBoundariesAdvice(Instruments.SECONDS_BUCKETS).build();
  }

  private <T> T timed(String operation, Supplier<T> call) {
    long start = System.nanoTime();
    String outcome = "error";
    try {
      T result = call.get();
      outcome = "success";
      return result;
    } finally {
      operations.record(Instruments.seconds(System.nanoTime() - start),
          Attributes.of(OPERATION, operation, OUTCOME, outcome, STORE, store));
    }
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    return timed("claim", () -> super.claim(request));
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    return timed("complete", () -> super.complete(id, token, result, retention));
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return timed("release", () -> super.release(id, token));
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    return timed("extend", () -> super.extendLease(id, token, lease));
  }

  @Override
  public Set<LeaseToken> extendLeases(List<HeldLease> leases, Duration lease) {
    return timed("extend_many", () -> super.extendLeases(leases, lease));
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    return timed("mark_unknown", () -> super.markUnknown(id, token, fence));
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    return timed("find", () -> super.find(id));
  }

  @Override
  public int purgeExpired(int limit) {
    return timed("purge", () -> super.purgeExpired(limit));
  }
}
