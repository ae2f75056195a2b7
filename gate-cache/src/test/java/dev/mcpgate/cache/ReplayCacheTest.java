package dev.mcpgate.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The replay cache over the in-memory store, with the store's clock and the process's monotonic
 * clock both moved by hand. The store's clock is seven hours ahead of the process's wall clock
 * (which the cache never reads) and runs from an unrelated origin to its monotonic clock, as real
 * clocks do.
 */
class ReplayCacheTest {
  private static final Duration RETENTION = Duration.ofSeconds(10);
  private static final GatePolicy POLICY = GatePolicy.builder().retention(RETENTION).build();

  private final MutableClock storeClock =
      new MutableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS).plus(Duration.ofHours(7)));
  private final Clocks.ManualNanos nanos = new Clocks.ManualNanos();
  private final InMemoryIdempotencyStore shared = InMemoryIdempotencyStore.create(storeClock);
  private final List<IdempotencyGate> gates = new ArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void closeGates() {
    gates.forEach(IdempotencyGate::close);
  }

  /** One process: its own cache over the shared store, counting what reaches the store. */
  private final class Instance {
    final CountingStore counted;
    final ReplayCache cache;
    final IdempotencyGate gate;

    Instance(ReplayCache cache, CountingStore counted) {
      this.cache = cache;
      this.counted = counted;
      this.gate = IdempotencyGate.builder(cache).policy(POLICY).build();
      gates.add(gate);
    }

    GateResult<String> call(String key, Map<String, ?> args) {
      return gate.execute(
          ToolCall.of("acme", "refund_order", key, args),
          ResultMapper.utf8(),
          ctx -> "refund #" + runs.incrementAndGet() + " for " + args);
    }
  }

  private Instance instance() {
    return instance(null);
  }

  private Instance instance(java.util.function.UnaryOperator<ReplayCache.Builder> settings) {
    CountingStore counted = new CountingStore(shared);
    ReplayCache.Builder b = ReplayCache.builder(counted).nanoTime(nanos).wallClock(nanos.wall());
    if (settings != null) {
      b = settings.apply(b);
    }
    return new Instance(b.build(), counted);
  }

  /** Lets d pass, on the store's clock and on the process's monotonic clock alike. */
  private void pass(Duration d) {
    storeClock.advance(d);
    nanos.advance(d);
  }

  private static final Map<String, Object> ARGS = Map.of("order", "o-1", "amount", 42);
  private static final Map<String, Object> OTHER_ARGS = Map.of("order", "o-1", "amount", 43);

  @Test
  void aCachedReplayMakesNoStoreCallAndReturnsTheStoredResult() {
    Instance a = instance();
    GateResult<String> first = a.call("k", ARGS);
    assertThat(first).isInstanceOf(GateResult.Executed.class);
    GateResult<String> fromStore = a.call("k", ARGS); // the store's answer fills the cache
    assertThat(fromStore).isInstanceOf(GateResult.Replayed.class);

    int before = a.counted.calls.get();
    GateResult<String> cached = a.call("k", ARGS);

    assertThat(a.counted.calls.get()).isEqualTo(before);
    assertThat(cached).isEqualTo(fromStore);
    assertThat(((GateResult.Replayed<String>) cached).value()).isEqualTo("refund #1 for " + ARGS);
    assertThat(runs).hasValue(1);
    assertThat(a.cache.stats().hits()).isEqualTo(1);
  }

  @Test
  void otherArgumentsWithinRetentionAreAConflictDecidedByTheStoredHash() {
    Instance a = instance();
    a.call("k", ARGS);
    a.call("k", ARGS);
    int before = a.counted.calls.get();

    GateResult<String> other = a.call("k", OTHER_ARGS);

    assertThat(other)
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
    assertThat(a.counted.calls.get()).isEqualTo(before); // decided from the cached row
    assertThat(runs).hasValue(1);
  }

  @Test
  void anEntryIsDroppedAMarginBeforeItsRowExpiresByTheStoresClock() {
    Instance a = instance();
    a.call("k", ARGS);
    a.call("k", ARGS);
    int claims = a.counted.claims.get();

    // 8.9 s of a 10 s retention: more than the 1 s margin left, and measured within the check
    for (int i = 0; i < 89; i++) {
      pass(Duration.ofMillis(100));
      if (i % 5 == 0) {
        a.call("other-" + i, ARGS); // other traffic keeps the clock measurement fresh
      }
    }
    int afterTraffic = a.counted.claims.get();
    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(afterTraffic); // still a hit

    pass(Duration.ofMillis(200)); // 9.1 s: within the margin of the row's expiry
    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(afterTraffic + 1); // asked the store
    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(afterTraffic + 2); // and not cached again

    pass(Duration.ofMillis(900)); // 10 s: expired by the store's clock
    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Executed.class);
    assertThat(a.counted.claims.get()).isEqualTo(afterTraffic + 3);
    assertThat(claims).isPositive();
  }

  @Test
  void aKeyReusedAfterExpiryWithOtherArgumentsRunsFresh() {
    Instance a = instance();
    a.call("k", ARGS);
    a.call("k", ARGS); // cached

    pass(RETENTION);

    GateResult<String> reused = a.call("k", OTHER_ARGS);
    assertThat(reused).isInstanceOf(GateResult.Executed.class); // not replayed, no conflict
    assertThat(((GateResult.Executed<String>) reused).value())
        .isEqualTo("refund #2 for " + OTHER_ARGS);
    // and the first arguments are now the conflict, within the new row's retention
    assertThat(a.call("k", ARGS))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
    assertThat(a.call("k", OTHER_ARGS)).isInstanceOf(GateResult.Replayed.class);
  }

  @Test
  void aClockMeasurementOlderThanTheCheckSendsTheClaimToTheStore() {
    Instance a = instance();
    a.call("k", ARGS);
    a.call("k", ARGS);
    int claims = a.counted.claims.get();

    pass(Duration.ofMillis(1_001)); // no claim reached the store for longer than the check

    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(claims + 1);
    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(claims + 1); // measured again: a hit
  }

  @Test
  void aStepForwardOfTheStoresClockSeenAtAnyClaimDropsEntriesThatMayHaveExpired() {
    Instance a = instance(b -> b.clockCheck(Duration.ofDays(1)));
    a.call("k", ARGS);
    a.call("k", ARGS);
    int claims = a.counted.claims.get();

    storeClock.advance(Duration.ofSeconds(9)); // the store's clock steps; ours does not move
    a.call("unrelated", ARGS); // one claim reaches the store and measures it

    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(claims + 2); // not answered from the cache
  }

  @Test
  void aStepBackwardOfTheStoresClockNeverMakesEntriesLiveLonger() {
    Instance a = instance(b -> b.clockCheck(Duration.ofDays(1)));
    a.call("k", ARGS);
    a.call("k", ARGS);

    storeClock.advance(Duration.ofSeconds(-5)); // an answer with an early clock
    a.call("unrelated", ARGS);
    pass(Duration.ofMillis(9_100)); // 9.1 s by our clock since the row was written: in margin

    int claims = a.counted.claims.get();
    a.call("k", ARGS);
    assertThat(a.counted.claims.get()).isEqualTo(claims + 1);
  }

  @Test
  void twoGateInstancesOnOneStore() {
    Instance a = instance();
    Instance b = instance();

    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Executed.class);
    assertThat(b.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class); // fills b
    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class); // fills a
    int aCalls = a.counted.calls.get();
    int bCalls = b.counted.calls.get();
    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(b.call("k", OTHER_ARGS))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
    assertThat(a.counted.calls.get()).isEqualTo(aCalls);
    assertThat(b.counted.calls.get()).isEqualTo(bCalls);

    // the row expires; b reuses the key with other arguments, and a, which cached the old row,
    // must see b's row, not its own memory
    pass(RETENTION);
    assertThat(b.call("k", OTHER_ARGS)).isInstanceOf(GateResult.Executed.class);
    assertThat(a.call("k", ARGS))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
    GateResult<String> replayed = a.call("k", OTHER_ARGS);
    assertThat(replayed)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> assertThat(r.value()).isEqualTo("refund #2 for " + OTHER_ARGS));
    assertThat(runs).hasValue(2);
  }

  @Test
  void theCacheIsBoundedBySize() {
    Instance a = instance(b -> b.maxEntries(3));
    for (int i = 0; i < 20; i++) {
      a.call("k" + i, ARGS);
      a.call("k" + i, ARGS);
    }
    assertThat(a.cache.stats().entries()).isLessThanOrEqualTo(3);
    // every key still replays, from the store when it is not held
    for (int i = 0; i < 20; i++) {
      assertThat(a.call("k" + i, ARGS)).isInstanceOf(GateResult.Replayed.class);
    }
    assertThat(a.cache.stats().entries()).isLessThanOrEqualTo(3);
    assertThat(runs).hasValue(20);
  }

  @Test
  void theCacheIsBoundedByBytesAcrossTenants() {
    long budget = 1024 * 1024;
    Instance a = instance(b -> b.maxBytes(budget));
    String large = "r".repeat(200 * 1024);
    for (String tenant : List.of("acme", "globex")) {
      for (int i = 0; i < 20; i++) {
        ToolCall call = ToolCall.of(tenant, "refund_order", "k" + i, ARGS);
        for (int n = 0; n < 2; n++) { // the second claim reads the row and fills the cache
          a.gate.execute(call, ResultMapper.utf8(), ctx -> large + runs.incrementAndGet());
        }
      }
    }
    ReplayCache.Stats stats = a.cache.stats();
    assertThat(stats.bytes()).isPositive().isLessThanOrEqualTo(budget);
    assertThat(stats.entries()).isBetween(1L, budget / (200 * 1024));
    // what was evicted, of either tenant, still replays: from the store
    for (String tenant : List.of("acme", "globex")) {
      for (int i = 0; i < 20; i++) {
        assertThat(
                a.gate.execute(
                    ToolCall.of(tenant, "refund_order", "k" + i, ARGS),
                    ResultMapper.utf8(),
                    ctx -> large + runs.incrementAndGet()))
            .isInstanceOf(GateResult.Replayed.class);
      }
    }
    assertThat(runs).hasValue(40);
    assertThat(a.cache.stats().bytes()).isLessThanOrEqualTo(budget);
  }

  @Test
  void theDefaultBudgetIsSixtyFourMebibytes() {
    Instance a = instance();
    String large = "r".repeat(250 * 1024);
    for (int i = 0; i < 400; i++) { // 100 MB of results, twice the cache's budget
      ToolCall call = ToolCall.of("acme", "refund_order", "k" + i, ARGS);
      a.gate.execute(call, ResultMapper.utf8(), ctx -> large);
      a.gate.execute(call, ResultMapper.utf8(), ctx -> large);
    }
    assertThat(a.cache.stats().bytes())
        .isPositive()
        .isLessThanOrEqualTo(ReplayCache.DEFAULT_MAX_BYTES);
    assertThat(a.cache.stats().entries()).isLessThan(400);
  }

  @Test
  void inProgressAndUnknownRowsAreNeverCached() {
    Instance a = instance();
    ToolCall call = ToolCall.of("acme", "refund_order", "held", ARGS);
    ClaimOutcome.Acquired held = (ClaimOutcome.Acquired) a.gate.claim(call);
    for (int i = 0; i < 3; i++) {
      assertThat(a.gate.claim(call)).isInstanceOf(ClaimOutcome.Refused.class);
    }
    assertThat(a.cache.stats().entries()).isZero();

    assertThat(a.gate.markUnknown(held)).isTrue();
    int claims = a.counted.claims.get();
    for (int i = 0; i < 3; i++) {
      assertThat(a.gate.claim(call))
          .isInstanceOfSatisfying(
              ClaimOutcome.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN));
    }
    assertThat(a.counted.claims.get()).isEqualTo(claims + 3);
    assertThat(a.cache.stats().entries()).isZero();
  }

  @Test
  void aRowRetainedForLessThanTheMarginIsNotCached() {
    Instance a = instance();
    IdempotencyGate brief =
        IdempotencyGate.builder(a.cache)
            .policy(
                GatePolicy.builder()
                    .retention(Duration.ofMillis(900))
                    .lease(Duration.ofMillis(500))
                    .leaseRenewal(Duration.ofMillis(100))
                    .build())
            .build();
    gates.add(brief);
    ToolCall call = ToolCall.of("acme", "refund_order", "brief", ARGS);
    brief.execute(call, ResultMapper.utf8(), ctx -> "done");
    brief.execute(call, ResultMapper.utf8(), ctx -> "again");
    int claims = a.counted.claims.get();
    assertThat(brief.execute(call, ResultMapper.utf8(), ctx -> "again"))
        .isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(claims + 1);
  }

  @Test
  void theStoreAnswerOfACachedClaimIsTheStoredRowWithAnEstimateOfTheStoresClock() {
    Instance a = instance();
    a.call("k", ARGS);
    ClaimAttempt fromStore = a.cache.claim(request("k"));
    pass(Duration.ofMillis(250));
    ClaimAttempt cached = a.cache.claim(request("k"));

    assertThat(cached).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(cached.record()).isEqualTo(fromStore.record());
    assertThat(cached.record().state()).isEqualTo(ClaimState.COMPLETED);
    // never behind the store's clock
    assertThat(cached.storeNow()).isAfterOrEqualTo(storeClock.instant());
    assertThat(cached.storeNow()).isBefore(storeClock.instant().plusMillis(50));
  }

  @Test
  void aStoreClockKeptInWholeMillisecondsNeverLetsAnEntryOutliveItsRowWithNoMargin() {
    Instance a =
        instance(
            b ->
                b.margin(Duration.ZERO)
                    .clockCheck(Duration.ofDays(1))
                    // a wall clock that stands still adds nothing to the estimate
                    .wallClock(java.time.InstantSource.fixed(Instant.EPOCH)));
    // every claim reaches the store 0.999999 ms into a millisecond, which the store cuts off: its
    // answer's clock reads almost a millisecond behind the instant it was taken
    pass(Duration.ofNanos(999_999));
    a.call("k", ARGS);
    pass(Duration.ofMillis(1));
    a.call("k", ARGS); // fills the cache

    pass(RETENTION.minusMillis(1).minusNanos(999_999)); // the row's expiry, to the nanosecond
    GateResult<String> reused = a.call("k", OTHER_ARGS);

    assertThat(reused).isInstanceOf(GateResult.Executed.class); // the store's answer, no conflict
    assertThat(a.cache.stats().hits()).isZero();
  }

  @Test
  void aHostSuspendedPastARowsExpiryNeverReplaysTheRowFromTheCache() {
    Instance a = instance();
    a.call("k", ARGS);
    a.call("k", ARGS); // fills the cache

    storeClock.advance(RETENTION.plusSeconds(5)); // the host sleeps: the store's clock runs on,
    nanos.suspend(RETENTION.plusSeconds(5)); // and so does the wall clock, but not nanoTime

    assertThat(a.call("k", OTHER_ARGS)).isInstanceOf(GateResult.Executed.class);
    assertThat(a.cache.stats().hits()).isZero();
    assertThat(runs).hasValue(2);
  }

  @Test
  void aHostSuspendedForLessThanTheMarginStillHits() {
    Instance a = instance();
    a.call("k", ARGS);
    a.call("k", ARGS);

    storeClock.advance(Duration.ofMillis(300));
    nanos.suspend(Duration.ofMillis(300));
    int claims = a.counted.claims.get();

    assertThat(a.call("k", ARGS)).isInstanceOf(GateResult.Replayed.class);
    assertThat(a.counted.claims.get()).isEqualTo(claims);
  }

  @Test
  void aStepForwardThatCameBackDropsEntriesEarlyUntilInvalidateAll() {
    Instance a = instance();
    a.call("k", ARGS);
    a.call("k", ARGS);

    storeClock.advance(Duration.ofHours(1)); // a fail-over to a server an hour ahead
    a.call("during-the-step", ARGS);
    storeClock.advance(Duration.ofHours(-1)); // and back: that clock is kept, in case it returns
    for (int i = 0; i < 13; i++) {
      pass(Duration.ofMillis(200));
      a.call("after-" + i, ARGS);
    }
    long hits = a.cache.stats().hits();
    a.call("k", ARGS);
    a.call("k", ARGS);
    assertThat(a.cache.stats().hits()).isEqualTo(hits); // every entry looks expired

    a.cache.invalidateAll(); // the operator knows the step is gone for good
    a.call("k", ARGS); // measures the clock afresh, and fills
    a.call("k", ARGS);
    assertThat(a.cache.stats().hits()).isEqualTo(hits + 1);
  }

  @Test
  void aCallerThatChangesTheBytesOfACachedReplayChangesNoLaterReplay() {
    Instance a = instance();
    ToolCall call = ToolCall.of("acme", "refund_order", "bytes", ARGS);
    byte[] result = {1, 2, 3};
    a.gate.execute(call, ResultMapper.bytes(), ctx -> result);
    a.gate.execute(call, ResultMapper.bytes(), ctx -> result); // fills the cache
    for (int i = 0; i < 2; i++) {
      GateResult<byte[]> hit = a.gate.execute(call, ResultMapper.bytes(), ctx -> result);
      assertThat(((GateResult.Replayed<byte[]>) hit).value()).containsExactly(1, 2, 3);
      java.util.Arrays.fill(((GateResult.Replayed<byte[]>) hit).value(), (byte) 0);
    }
    assertThat(a.cache.stats().hits()).isEqualTo(2);
  }

  @Test
  void settingsAreChecked() {
    assertThatThrownBy(() -> ReplayCache.builder(shared).maxBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBytes");
    assertThatThrownBy(() -> ReplayCache.builder(shared).maxEntries(10).maxBytes(5).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBytes (5) must be at least maxEntries (10)");
    assertThatThrownBy(() -> ReplayCache.builder(shared).maxEntries(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReplayCache.builder(shared).margin(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReplayCache.builder(shared).clockCheck(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static dev.mcpgate.core.spi.ClaimRequest request(String key) {
    return new dev.mcpgate.core.spi.ClaimRequest(
        new dev.mcpgate.core.ClaimId("acme", "refund_order", key),
        "v1:not-the-stored-hash",
        dev.mcpgate.core.LeaseToken.random(),
        Duration.ofSeconds(2),
        RETENTION);
  }
}
