package dev.mcpgate.core.spi;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A store that measures each of its operations and hands the measurement to {@link #record}: the
 * base of the metrics modules' timed stores, so that each says once how it records, not once per
 * operation. The operation names are {@code claim}, {@code complete}, {@code release}, {@code
 * extend}, {@code extend_many}, {@code mark_unknown}, {@code find} and {@code purge}; {@link
 * #now()} is not measured.
 */
public abstract class TimedIdempotencyStore extends ForwardingIdempotencyStore {

  /**
   * @param delegate the store every call goes to
   */
  protected TimedIdempotencyStore(IdempotencyStore delegate) {
    super(delegate);
  }

  /**
   * Records one operation; called after it ended, on the caller's thread. Must not throw.
   *
   * @param operation the operation's name
   * @param succeeded false when it threw
   * @param nanos how long it took
   */
  protected abstract void record(String operation, boolean succeeded, long nanos);

  private <T> T timed(String operation, Supplier<T> call) {
    long start = System.nanoTime();
    boolean succeeded = false;
    try {
      T result = call.get();
      succeeded = true;
      return result;
    } finally {
      record(operation, succeeded, System.nanoTime() - start);
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
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    return timed("extend_many", () -> super.extendLeases(leases, lease, within));
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
