package dev.mcpgate.core.memory;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.Takeover;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * A thread-safe store in this process's memory, for tests and single-process servers (a stdio
 * server). It follows the same contract as the database stores: each operation is one atomic step
 * on the key's entry ({@link ConcurrentHashMap#compute}), and time comes from an injected {@link
 * InstantSource}, truncated to milliseconds as the database stores keep it. Nothing survives a
 * restart.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {
  private final ConcurrentHashMap<ClaimId, ClaimRecord> rows = new ConcurrentHashMap<>();
  private final InstantSource clock;

  private InMemoryIdempotencyStore(InstantSource clock) {
    this.clock = clock;
  }

  /**
   * @return a store on the system clock
   */
  public static InMemoryIdempotencyStore create() {
    return new InMemoryIdempotencyStore(InstantSource.system());
  }

  /**
   * @param clock the store's clock; tests pass one they can move
   * @return a store on that clock
   */
  public static InMemoryIdempotencyStore create(InstantSource clock) {
    return new InMemoryIdempotencyStore(Checks.notNull(clock, "clock"));
  }

  @Override
  public Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    Checks.notNull(request, "request");
    Instant now = now();
    boolean[] acquired = new boolean[1];
    ClaimRecord row =
        rows.compute(
            request.id(),
            (id, old) -> {
              if (!Takeover.allowed(old, request, now)) {
                return old;
              }
              acquired[0] = true;
              return new ClaimRecord(
                  id,
                  request.argsHash(),
                  ClaimState.IN_PROGRESS,
                  request.token(),
                  Takeover.nextAttempt(old, now),
                  now,
                  now.plus(request.lease()),
                  now.plus(request.retention()),
                  null,
                  null);
            });
    if (acquired[0]) {
      return new ClaimAttempt.Acquired(row, now);
    }
    return row == null ? new ClaimAttempt.Absent(now) : new ClaimAttempt.Existing(row, now);
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    Checks.notNull(result, "result");
    Checks.positiveMillis(retention, "retention");
    Instant now = now();
    return update(
        id,
        token,
        false,
        old ->
            new ClaimRecord(
                id,
                old.argsHash(),
                ClaimState.COMPLETED,
                old.token(),
                old.attempt(),
                old.createdAt(),
                old.leaseExpiresAt(),
                now.plus(retention),
                now,
                result));
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    Checks.notNull(id, "id");
    Checks.notNull(token, "token");
    boolean[] removed = new boolean[1];
    rows.computeIfPresent(
        id,
        (k, old) -> {
          if (old.token().equals(token) && old.state() != ClaimState.COMPLETED) {
            removed[0] = true;
            return null;
          }
          return old;
        });
    return removed[0];
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    Checks.positiveMillis(lease, "lease");
    Instant leaseEnd = now().plus(lease);
    return update(
        id,
        token,
        true,
        old ->
            new ClaimRecord(
                id,
                old.argsHash(),
                old.state(),
                old.token(),
                old.attempt(),
                old.createdAt(),
                leaseEnd,
                old.expiresAt().isBefore(leaseEnd) ? leaseEnd : old.expiresAt(),
                null,
                null));
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    Checks.positiveMillis(fence, "fence");
    Instant fencedUntil = now().plus(fence);
    return update(
        id,
        token,
        true,
        old ->
            new ClaimRecord(
                id,
                old.argsHash(),
                ClaimState.UNKNOWN,
                old.token(),
                old.attempt(),
                old.createdAt(),
                old.leaseExpiresAt(),
                fencedUntil,
                null,
                null));
  }

  private boolean update(
      ClaimId id, LeaseToken token, boolean onlyInProgress, UnaryOperator<ClaimRecord> change) {
    Checks.notNull(id, "id");
    Checks.notNull(token, "token");
    boolean[] changed = new boolean[1];
    rows.computeIfPresent(
        id,
        (k, old) -> {
          boolean holds =
              old.token().equals(token)
                  && (onlyInProgress
                      ? old.state() == ClaimState.IN_PROGRESS
                      : old.state() != ClaimState.COMPLETED);
          if (!holds) {
            return old;
          }
          changed[0] = true;
          return change.apply(old);
        });
    return changed[0];
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    return Optional.ofNullable(rows.get(Checks.notNull(id, "id")));
  }

  @Override
  public int purgeExpired(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    Instant now = now();
    int purged = 0;
    for (Iterator<Map.Entry<ClaimId, ClaimRecord>> it = rows.entrySet().iterator();
        it.hasNext() && purged < limit; ) {
      Map.Entry<ClaimId, ClaimRecord> e = it.next();
      ClaimRecord row = e.getValue();
      // remove(key, value) deletes only the row we looked at, never one taken over since
      if (Takeover.expired(row, now) && rows.remove(e.getKey(), row)) {
        purged++;
      }
    }
    return purged;
  }
}
