package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Time, expiry and purge, all on the store's clock: the row's times, purging only what expired
 * (also while other threads claim), and decisions when the application's clock is hours off.
 *
 * <p>Run as {@link IdempotencyStoreContract.Expiry}, a nested group of the contract.
 */
abstract class ExpiryTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  ExpiryTests(IdempotencyStoreContract contract) {
    super(contract);
  }

  @Test
  void rowTimesComeFromTheStoreClock() {
    Instant before = store.now();
    ClaimRecord row = claim(id("k"), "v1:a", LeaseToken.random(), LONG).record();
    Instant after = store.now();

    assertThat(row.createdAt()).isBetween(before, after);
    assertThat(Duration.between(row.createdAt(), row.leaseExpiresAt())).isEqualTo(LONG);
    assertThat(Duration.between(row.createdAt(), row.expiresAt())).isEqualTo(LONG.multipliedBy(6));
    assertThat(store.find(id("k")).orElseThrow()).isEqualTo(row);
  }

  @Test
  void aCompletedRowSaysWhenAndAReplaySaysWhichAttemptAndWhen() {
    IdempotencyGate gate = gate(GatePolicy.defaults());
    Instant before = store.now();
    gate.execute(call("when", Map.of()), ResultMapper.utf8(), ctx -> "done");
    Instant after = store.now();

    ClaimRecord row = store.find(id("when")).orElseThrow();
    assertThat(row.completedAt()).isBetween(row.createdAt(), after);
    assertThat(row.createdAt()).isBetween(before, after);
    assertThat(gate.execute(call("when", Map.of()), ResultMapper.utf8(), ctx -> "again"))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> {
              assertThat(r.attempt()).isEqualTo(1);
              assertThat(r.firstExecutedAt()).isEqualTo(row.createdAt());
              assertThat(r.completedAt()).isEqualTo(row.completedAt());
            });
    LeaseToken open = LeaseToken.random();
    claim(id("open"), "v1:a", open, LONG);
    assertThat(store.find(id("open")).orElseThrow().completedAt()).isNull();
  }

  @Test
  void purgeDeletesOnlyExpiredRowsAndAtMostTheLimit() throws Exception {
    for (int i = 0; i < 5; i++) {
      LeaseToken token = LeaseToken.random();
      ClaimId id = id("old-" + i);
      store.claim(new ClaimRequest(id, "v1:a", token, shortLease(), shortLease()));
      store.complete(id, token, value("r"), shortLease());
    }
    claim(id("live"), "v1:a", LeaseToken.random(), LONG);
    elapse(shortLease());

    int purged = 0;
    int first = store.purgeExpired(2);
    assertThat(first).isBetween(1, 2);
    purged += first;
    for (int round = 0; round < 50; round++) {
      purged += store.purgeExpired(1000);
    }

    for (int i = 0; i < 5; i++) {
      assertThat(store.find(id("old-" + i))).isEmpty();
    }
    assertThat(store.find(id("live"))).isPresent();
    assertThat(purged).isGreaterThanOrEqualTo(5);
  }

  @Test
  void purgeRacingFreshClaimsAndTakeoversNeverDeletesAClaimedRow() throws Exception {
    int keys = 40;
    for (int round = 0; round < 3; round++) {
      List<ClaimId> ids = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        ClaimId id = id("race-" + round + "-" + i);
        ids.add(id);
        // half expire whole (a fresh claim follows), half only their lease (a takeover follows)
        Duration retention = i % 2 == 0 ? shortLease() : LONG;
        store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), shortLease(), retention));
      }
      elapse(shortLease());
      Map<ClaimId, LeaseToken> reclaimed = new ConcurrentHashMap<>();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> work = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          work.add(
              pool.submit(
                  () -> {
                    go.await();
                    for (int n = 0; n < 20; n++) {
                      store.purgeExpired(1000);
                    }
                    return null;
                  }));
        }
        for (int t = 0; t < 2; t++) {
          int part = t;
          work.add(
              pool.submit(
                  () -> {
                    go.await();
                    for (int i = part; i < keys; i += 2) {
                      LeaseToken token = LeaseToken.random();
                      if (claim(ids.get(i), "v1:a", token, LONG) instanceof ClaimAttempt.Acquired) {
                        reclaimed.put(ids.get(i), token);
                      }
                    }
                    return null;
                  }));
        }
        go.countDown();
        for (Future<?> f : work) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(reclaimed).hasSize(keys);
      for (Map.Entry<ClaimId, LeaseToken> e : reclaimed.entrySet()) {
        assertThat(store.find(e.getKey()))
            .as("%s after purge", e.getKey())
            .hasValueSatisfying(
                row -> {
                  assertThat(row.token()).isEqualTo(e.getValue());
                  assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
                });
      }
    }
  }

  @Test
  void decisionsFollowTheStoreClockWhenTheApplicationClockIsHoursOff() throws Exception {
    for (Duration shift : List.of(Duration.ofHours(7), Duration.ofHours(-7))) {
      List<dev.mcpgate.core.GateEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
      java.time.InstantSource appClock = () -> store.now().plus(shift);
      IdempotencyGate gate =
          IdempotencyGate.builder(store)
              .clock(appClock)
              .listener(events::add)
              .policy(
                  GatePolicy.builder()
                      .retention(Duration.ofHours(1))
                      .lease(shortLease())
                      .leaseRenewal(Duration.ZERO)
                      .inFlightWait(Duration.ZERO)
                      .build())
              .build();
      String k = "shift" + shift.toHours();
      // retention: an hour-long result is replayed although the application is 7 h ahead
      gate.execute(call(k + "-done", Map.of("a", 1)), ResultMapper.utf8(), ctx -> "first");
      assertThat(
              gate.execute(call(k + "-done", Map.of("a", 1)), ResultMapper.utf8(), ctx -> "second"))
          .as("%s: replay", shift)
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("first"));
      // lease: a live lease is refused for what is left of it on the store's clock
      ClaimOutcome.Acquired held = (ClaimOutcome.Acquired) gate.claim(call(k, Map.of("a", 1)));
      GateResult<String> refused =
          gate.execute(call(k, Map.of("a", 1)), ResultMapper.utf8(), ctx -> "too early");
      assertThat(refused)
          .as("%s: live lease", shift)
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> {
                assertThat(r.reason())
                    .isIn(RefusalReason.IN_PROGRESS, RefusalReason.HOLDER_UNRESPONSIVE);
                assertThat(r.retryAfter()).isPositive().isLessThanOrEqualTo(shortLease());
              });
      // takeover: once the lease ran out on the store's clock, and not before
      elapse(shortLease());
      GateResult<String> takeover =
          gate.execute(
              call(k, Map.of("a", 1)), ResultMapper.utf8(), ctx -> "attempt " + ctx.attempt());
      assertThat(takeover)
          .as("%s: takeover", shift)
          .isInstanceOfSatisfying(
              GateResult.Executed.class, r -> assertThat(r.value()).isEqualTo("attempt 2"));
      assertThat(gate.complete(held, new byte[] {1}, false)).isFalse();
      // the application's clock stamps the events, and nothing else
      assertThat(events)
          .isNotEmpty()
          .allSatisfy(
              e ->
                  assertThat(Duration.between(store.now().plus(shift), e.at()).abs())
                      .isLessThan(Duration.ofMinutes(10)));
    }
  }
}
