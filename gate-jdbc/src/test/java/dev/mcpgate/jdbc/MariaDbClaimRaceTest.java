package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Racing auto-committed claims of one key on MariaDB acquire it once: on a fresh key, over an
 * expired lease, over an expired row, with the purge deleting expired rows meanwhile, and with
 * statements the server prepares. (Written to review a one-statement claim, INSERT .. ON DUPLICATE
 * KEY UPDATE .. RETURNING, tried at 8fd90f1 and taken back; they guard the claim as it is.)
 */
class MariaDbClaimRaceTest {
  private static final String TABLE = "mcpgate_rv_race";
  private static final int RACERS = 12;
  private static final int KEYS = 60;

  private static ClaimRequest request(ClaimId id, Duration lease, Duration retention) {
    return new ClaimRequest(id, "v1:a", LeaseToken.random(), lease, retention);
  }

  /** Races {@link #RACERS} claims of {@code id}; returns how many acquired it. */
  private static int race(
      JdbcIdempotencyStore store, ExecutorService pool, ClaimId id, Duration lease)
      throws Exception {
    CyclicBarrier start = new CyclicBarrier(RACERS);
    List<Future<ClaimAttempt>> answers = new ArrayList<>();
    for (int i = 0; i < RACERS; i++) {
      answers.add(
          pool.submit(
              () -> {
                start.await();
                return store.claim(request(id, lease, Duration.ofHours(1)));
              }));
    }
    int acquired = 0;
    for (Future<ClaimAttempt> a : answers) {
      ClaimAttempt attempt = a.get();
      if (attempt instanceof ClaimAttempt.Acquired) {
        acquired++;
      }
    }
    return acquired;
  }

  @Test
  void racersOnAFreshKeyAcquireItOnce() throws Exception {
    freshKeyRaces("");
  }

  /** The statements prepared by the server. */
  @Test
  void racersOnAFreshKeyAcquireItOnceWithServerPreparedStatements() throws Exception {
    freshKeyRaces("&useServerPrepStmts=true");
  }

  /** A replay of a row another transaction holds, with server-prepared statements. */
  @Test
  void aReplayOfAHeldRowFallsBackWithServerPreparedStatements() throws Exception {
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(50, 4, "&useServerPrepStmts=true");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      ClaimId id = new ClaimId("rv-" + UUID.randomUUID(), "t", "held");
      ClaimAttempt first = store.claim(request(id, Duration.ofMinutes(1), Duration.ofHours(1)));
      try (java.sql.Connection holder = MariaDbPurgeFixtures.hold(ds, TABLE, id)) {
        long started = System.nanoTime();
        for (int i = 0; i < 20; i++) {
          ClaimAttempt again = store.claim(request(id, Duration.ofMinutes(1), Duration.ofHours(1)));
          assertThat(again).isInstanceOf(ClaimAttempt.Existing.class);
          assertThat(again.record().token()).isEqualTo(first.record().token());
        }
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(5000);
        holder.rollback();
      }
      ClaimAttempt after = store.claim(request(id, Duration.ofMinutes(1), Duration.ofHours(1)));
      assertThat(after).isInstanceOf(ClaimAttempt.Existing.class);
    }
  }

  private static void freshKeyRaces(String urlOptions) throws Exception {
    String tenant = "rv-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(50, RACERS, urlOptions);
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      for (int k = 0; k < KEYS; k++) {
        assertThat(race(store, pool, new ClaimId(tenant, "t", "fresh-" + k), Duration.ofMinutes(1)))
            .as("fresh key %d", k)
            .isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void racersOverAnExpiredLeaseTakeItOverOnce() throws Exception {
    String tenant = "rv-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(50, RACERS, "");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      for (int k = 0; k < KEYS; k++) {
        ClaimId id = new ClaimId(tenant, "t", "lease-" + k);
        store.claim(request(id, Duration.ofMillis(1), Duration.ofHours(1)));
        Thread.sleep(3);
        assertThat(race(store, pool, id, Duration.ofMinutes(1)))
            .as("expired lease %d", k)
            .isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void racersOverExpiredRowsThePurgeDeletesAcquireEachOnce() throws Exception {
    String tenant = "rv-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(RACERS + 1);
    AtomicBoolean stop = new AtomicBoolean();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(50, RACERS + 2, "");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      Future<?> purging =
          pool.submit(
              () -> {
                while (!stop.get()) {
                  store.purgeExpired(64);
                }
                return null;
              });
      ExecutorService racers = Executors.newFixedThreadPool(RACERS);
      try {
        for (int k = 0; k < KEYS; k++) {
          ClaimId id = new ClaimId(tenant, "t", "row-" + k);
          store.claim(request(id, Duration.ofMillis(1), Duration.ofMillis(1)));
          Thread.sleep(k % 3); // the purge deletes some before the race, some during it
          assertThat(race(store, racers, id, Duration.ofMinutes(1)))
              .as("expired row %d", k)
              .isEqualTo(1);
        }
      } finally {
        racers.shutdownNow();
      }
      stop.set(true);
      purging.get();
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
  }
}
