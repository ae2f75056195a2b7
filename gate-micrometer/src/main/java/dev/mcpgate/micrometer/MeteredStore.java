package dev.mcpgate.micrometer;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Times every store operation: {@code mcpgate.store.operations} (timer; tags
 * {@code operation} = {@code claim}, {@code complete}, {@code release}, {@code extend},
 * {@code mark_unknown}, {@code find}, {@code purge}; {@code outcome} = {@code success} or
 * {@code error}; {@code store}). A claim's latency is most of what a replay costs, so this is the
 * timer to watch; a rising {@code error} rate is a store going away.
 */
public final class MeteredStore extends ForwardingIdempotencyStore {
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
    return new MeteredStore(Checks.notNull(delegate, "delegate"),
        Checks.notNull(registry, "registry"), Checks.notNull(store, "store"));
  }

  private <T> T timed(String operation, Supplier<T> call) {
    long start = System.nanoTime();
    String outcome = "error";
    try {
      T result = call.get();
      outcome = "success";
      return result;
    } finally {
      Timer.builder("mcpgate.store.operations").tag("operation", operation)
          .tag("outcome", outcome).tag("store", store).register(registry)
          .record(Duration.ofNanos(System.nanoTime() - start));
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
