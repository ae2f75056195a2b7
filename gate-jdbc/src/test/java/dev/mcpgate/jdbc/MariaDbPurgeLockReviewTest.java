package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB/MySQL purge holds no lock but those of the expired rows it deleted, and waits on no
 * row; these cases fail for a purge whose batch is one transaction under REPEATABLE READ that waits
 * on held rows (tried, and taken back; the purge now deletes in auto-committed statements with no
 * lock wait, on MariaDB up to 64 rows a statement under READ COMMITTED, stopped after 50 ms, {@code
 * MariaDbPurgeBatchTest}). Under REPEATABLE READ every primary-key DELETE of the batch keeps its
 * lock until the batch commits: the lock of a row it deleted, of a row it found but did not delete
 * (taken over or renewed since the purge's read: a live lease), and the gap of a row it did not
 * find. When one DELETE of the batch waits on a row another transaction holds (an expired row a
 * single-commit takeover is writing over, here a FOR UPDATE of it), all of those locks are held for
 * as long as that wait (up to innodb_lock_wait_timeout, 50 s by default).
 */
class MariaDbPurgeLockReviewTest {
  private static final String TABLE = "mcpgate_purge_review";

  private static HikariDataSource pool() {
    // bounded, so that a test that fails does not hang 50 s a wait
    return MariaDbPurgeFixtures.pool(20, 8, "");
  }

  private static JdbcIdempotencyStore store(HikariDataSource ds) {
    return MariaDbPurgeFixtures.store(ds, TABLE);
  }

  private static void expiring(JdbcIdempotencyStore store, ClaimId id) throws Exception {
    MariaDbPurgeFixtures.expiring(store, id);
  }

  private static ClaimRequest fresh(ClaimId id, LeaseToken token) {
    return new ClaimRequest(id, "v1:a", token, Duration.ofMinutes(1), Duration.ofHours(1));
  }

  private static Connection holdLocked(HikariDataSource ds, ClaimId id) throws Exception {
    return MariaDbPurgeFixtures.hold(ds, TABLE, id);
  }

  private static void release(Connection holder) throws Exception {
    holder.rollback();
    holder.setAutoCommit(true);
    holder.close();
  }

  /**
   * Rows e-0..e-4 expired, then L expired; L is locked by an in-flight transaction. The purge
   * deletes e-0..e-4 and waits on L, keeping e-0 locked. A new claim of e-0 (a takeover of the
   * expired row, as its consistent read still sees it) waits for the purge, that is for L's holder.
   * With a commit a row, e-0 was gone at once and the claim inserted it.
   */
  @Test
  void aClaimOfARowTheBatchDeletedDoesNotWaitOnAnotherRowsHolder() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (HikariDataSource ds = pool();
        JdbcIdempotencyStore store = store(ds)) {
      ClaimId e0 = new ClaimId(tenant, "t", "e-0");
      expiring(store, e0);
      for (int i = 1; i < 5; i++) {
        expiring(store, new ClaimId(tenant, "t", "e-" + i));
      }
      ClaimId locked = new ClaimId(tenant, "t", "l");
      expiring(store, locked);
      Thread.sleep(300);
      Connection holder = holdLocked(ds, locked);
      Future<Integer> purge;
      try {
        purge = pool.submit(() -> store.purgeExpired(500));
        Thread.sleep(700); // the purge is waiting on l
        Future<ClaimAttempt> claim = pool.submit(() -> store.claim(fresh(e0, LeaseToken.random())));
        ClaimAttempt attempt;
        try {
          attempt = claim.get(3, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          attempt = null;
        }
        assertThat(attempt)
            .as(
                "a claim of an expired key the purge already deleted, while the purge waits on"
                    + " another row's holder")
            .isInstanceOf(ClaimAttempt.Acquired.class);
      } finally {
        release(holder);
      }
      purge.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Rows L1, X, L2 expired, in that order; L1 and L2 are locked by in-flight transactions. The
   * purge reads all three and waits on L1. X is then taken over by a new claim (a live lease, token
   * T2). L1's holder finishes: the purge's DELETE of X (token T1) deletes nothing but locks X under
   * REPEATABLE READ, and the purge waits on L2 with X locked. T2's renewal (lock wait 0) is
   * undecided, its completion waits: the live lease is held up by a purge that deletes nothing of
   * it, for as long as another row's holder runs.
   */
  @Test
  void aLiveLeaseTakenOverAfterThePurgesReadIsNotLockedByIt() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (HikariDataSource ds = pool();
        JdbcIdempotencyStore store = store(ds)) {
      ClaimId l1 = new ClaimId(tenant, "t", "l1");
      ClaimId x = new ClaimId(tenant, "t", "x");
      ClaimId l2 = new ClaimId(tenant, "t", "l2");
      expiring(store, l1);
      expiring(store, x);
      expiring(store, l2);
      Thread.sleep(300);
      Connection holder1 = holdLocked(ds, l1);
      Connection holder2 = holdLocked(ds, l2);
      Future<Integer> purge;
      try {
        purge = pool.submit(() -> store.purgeExpired(500));
        Thread.sleep(700); // the purge read l1, x, l2 and waits on l1
        LeaseToken t2 = LeaseToken.random();
        assertThat(store.claim(fresh(x, t2))).isInstanceOf(ClaimAttempt.Acquired.class);
        release(holder1);
        holder1 = null;
        Thread.sleep(700); // the purge went past x and waits on l2

        ExtendedLeases renewed =
            store.extendLeases(
                List.of(new HeldLease(x, t2)), Duration.ofMinutes(1), Duration.ofSeconds(2));
        Future<Boolean> completion =
            pool.submit(
                () ->
                    store.complete(
                        x,
                        t2,
                        new StoredResult(StoredResult.Kind.values()[0], new byte[] {1}),
                        Duration.ofHours(1)));
        Boolean completed;
        try {
          completed = completion.get(3, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          completed = null;
        }
        assertThat(renewed.extended())
            .as("the renewal of the live lease x, which the purge does not delete")
            .containsExactly(t2);
        assertThat(completed).as("the completion of the live lease x").isTrue();
      } finally {
        if (holder1 != null) {
          release(holder1);
        }
        release(holder2);
      }
      purge.get(30, TimeUnit.SECONDS);
      assertThat(store.find(x)).isPresent();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Rows "a-l1", "m-x", "z-l2" expired; a-l1 and z-l2 held. The purge reads the three and waits on
   * a-l1; m-x is then taken over and released (its row deleted). The purge's DELETE of m-x finds no
   * row (or its delete-marked record) and keeps a lock on it (the record, or once InnoDB's purge
   * removed it, the gap) under REPEATABLE READ, then waits on z-l2. A fresh claim of m-x, a key
   * nobody holds, whose INSERT needs that lock, waits on the purge, that is on z-l2's holder. (Once
   * InnoDB's purge has removed the record, a key never used that sorts into that gap, "m-w", waits
   * too; that depends on the InnoDB purge thread's timing, so it is not asserted.)
   */
  @Test
  void aFreshClaimOfAReleasedKeyDoesNotWaitOnThePurge() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (HikariDataSource ds = pool();
        JdbcIdempotencyStore store = store(ds)) {
      ClaimId l1 = new ClaimId(tenant, "t", "a-l1");
      ClaimId x = new ClaimId(tenant, "t", "m-x");
      ClaimId l2 = new ClaimId(tenant, "t", "z-l2");
      expiring(store, l1);
      expiring(store, x);
      expiring(store, l2);
      Thread.sleep(300);
      Connection holder1 = holdLocked(ds, l1);
      Connection holder2 = holdLocked(ds, l2);
      Future<Integer> purge;
      try {
        purge = pool.submit(() -> store.purgeExpired(500));
        Thread.sleep(700);
        LeaseToken t2 = LeaseToken.random();
        assertThat(store.claim(fresh(x, t2))).isInstanceOf(ClaimAttempt.Acquired.class);
        assertThat(store.release(x, t2)).isTrue();
        release(holder1);
        holder1 = null;
        Thread.sleep(700); // the purge went past m-x and waits on z-l2

        Future<ClaimAttempt> claim = pool.submit(() -> store.claim(fresh(x, LeaseToken.random())));
        ClaimAttempt attempt;
        try {
          attempt = claim.get(3, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          attempt = null;
        }
        assertThat(attempt)
            .as("a fresh claim of the released key m-x, which the purge did not find")
            .isInstanceOf(ClaimAttempt.Acquired.class);
      } finally {
        if (holder1 != null) {
          release(holder1);
        }
        release(holder2);
      }
      purge.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The consequence for at most once: x is taken over (lease 2 s, token T2) after the purge's read;
   * the purge then locks x and waits on l2's holder. T2's holder renews every 400 ms, as the gate
   * would, and every renewal is left undecided; its lease runs out in the table. A duplicate claim
   * of x with the same arguments waits on the purge, and once l2's holder ends and the purge
   * commits, it takes x over (attempt 2) while T2's holder is still running and renewing: two
   * attempts of one intent run at once. With a commit a row, every renewal extended x and the
   * duplicate found it in flight.
   */
  @Test
  void aLeaseRenewedEveryPeriodIsNotTakenOverBecauseThePurgeHeldItsRow() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (HikariDataSource ds = pool();
        JdbcIdempotencyStore store = store(ds)) {
      ClaimId l1 = new ClaimId(tenant, "t", "l1");
      ClaimId x = new ClaimId(tenant, "t", "x");
      ClaimId l2 = new ClaimId(tenant, "t", "l2");
      expiring(store, l1);
      expiring(store, x);
      expiring(store, l2);
      Thread.sleep(300);
      Connection holder1 = holdLocked(ds, l1);
      Connection holder2 = holdLocked(ds, l2);
      Future<Integer> purge;
      Future<ClaimAttempt> duplicate;
      int undecided = 0;
      try {
        purge = pool.submit(() -> store.purgeExpired(500));
        Thread.sleep(700);
        LeaseToken t2 = LeaseToken.random();
        assertThat(
                store.claim(
                    new ClaimRequest(x, "v1:a", t2, Duration.ofSeconds(2), Duration.ofHours(1))))
            .isInstanceOf(ClaimAttempt.Acquired.class);
        release(holder1);
        holder1 = null;
        for (int i = 0; i < 10; i++) { // 4 s of renewals, one each 400 ms
          ExtendedLeases renewed =
              store.extendLeases(
                  List.of(new HeldLease(x, t2)), Duration.ofSeconds(2), Duration.ofSeconds(1));
          if (renewed.undecided().contains(t2)) {
            undecided++;
          }
          Thread.sleep(400);
        }
        duplicate =
            pool.submit(
                () ->
                    store.claim(
                        new ClaimRequest(
                            x,
                            "v1:a",
                            LeaseToken.random(),
                            Duration.ofSeconds(2),
                            Duration.ofHours(1))));
        Thread.sleep(300);
      } finally {
        if (holder1 != null) {
          release(holder1);
        }
        release(holder2);
      }
      purge.get(30, TimeUnit.SECONDS);
      ClaimAttempt second = duplicate.get(30, TimeUnit.SECONDS);
      assertThat(second)
          .as(
              "a duplicate of x while its holder renews every 400 ms (renewals left undecided: "
                  + undecided
                  + " of 10)")
          .isInstanceOf(ClaimAttempt.Existing.class);
      assertThat(undecided).as("renewals of x left undecided").isZero();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Rows e-0..e-4 expired, then l expired and held by an in-flight transaction for longer than the
   * purge's lock wait (here 2 s; 50 s by default, while a single-commit takeover's action may run
   * for its whole lease and more). Every purge waits on l, times out, and rolls back e-0..e-4 with
   * it: nothing is purged for as long as l is held, and the next purge reads the same oldest rows.
   * With a commit a row, e-0..e-4 were purged and only l's DELETE failed.
   */
  @Test
  void oneHeldExpiredRowDoesNotStopEveryPurge() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(2, 4, "");
        JdbcIdempotencyStore store = store(ds)) {
      ClaimId e0 = new ClaimId(tenant, "t", "e-0");
      expiring(store, e0);
      for (int i = 1; i < 5; i++) {
        expiring(store, new ClaimId(tenant, "t", "e-" + i));
      }
      ClaimId locked = new ClaimId(tenant, "t", "l");
      expiring(store, locked);
      Thread.sleep(300);
      Connection holder = holdLocked(ds, locked);
      try {
        for (int i = 0; i < 2; i++) {
          try {
            store.purgeExpired(500);
          } catch (RuntimeException expected) {
            // l's DELETE waited out its lock wait
          }
        }
        assertThat(store.find(e0))
            .as("an expired row nobody holds, after two purges while another row is held")
            .isEmpty();
      } finally {
        release(holder);
      }
    }
  }

  /**
   * Two purges (two replicas) deadlock: their lists are both ordered by created_at_ms, but a
   * takeover moves a row's created_at_ms, so a row re-expired after purge A's read comes first in
   * A's list and last in B's. A locks R (its DELETE by the old token deletes nothing, under
   * REPEATABLE READ it keeps the lock) and later wants S; B deleted S and later wants R. InnoDB
   * rolls one purge back whole (1213). Holders of other rows only pin the timing.
   */
  @Test
  void twoPurgesDoNotDeadlock() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (HikariDataSource ds = pool();
        JdbcIdempotencyStore store = store(ds)) {
      ClaimId h0 = new ClaimId(tenant, "t", "h0");
      ClaimId r = new ClaimId(tenant, "t", "r");
      ClaimId h1 = new ClaimId(tenant, "t", "h1");
      ClaimId s = new ClaimId(tenant, "t", "s");
      ClaimId h2 = new ClaimId(tenant, "t", "h2");
      for (ClaimId id : new ClaimId[] {h0, r, h1, s, h2}) {
        expiring(store, id);
      }
      Thread.sleep(300);
      Connection holder0 = holdLocked(ds, h0);
      Connection holderH1 = null;
      Connection holder2 = null;
      Future<Integer> purgeA;
      Future<Integer> purgeB;
      try {
        purgeA = pool.submit(() -> store.purgeExpired(500)); // reads h0, r, h1, s, h2
        Thread.sleep(700);
        // h1 taken over (live) and locked, as a completion or renewal in flight would hold it
        assertThat(store.claim(fresh(h1, LeaseToken.random())))
            .isInstanceOf(ClaimAttempt.Acquired.class);
        holderH1 = holdLocked(ds, h1);
        // r taken over by a short call and expired again: now the newest expired row
        assertThat(
                store.claim(
                    new ClaimRequest(
                        r,
                        "v1:a",
                        LeaseToken.random(),
                        Duration.ofMillis(100),
                        Duration.ofMillis(100))))
            .isInstanceOf(ClaimAttempt.Acquired.class);
        holder2 = holdLocked(ds, h2);
        // h0's holder takes it over and commits: A goes on, locks h0 and r, waits on h1
        try (PreparedStatement live =
            holder0.prepareStatement(
                "UPDATE "
                    + TABLE
                    + " SET expires_at_ms = expires_at_ms + 3600000"
                    + " WHERE tenant = ? AND tool = ? AND idem_key = ?")) {
          ClaimRows.bindKey(live, 1, h0);
          live.executeUpdate();
        }
        holder0.commit();
        holder0.setAutoCommit(true);
        holder0.close();
        holder0 = null;
        Thread.sleep(400); // r expired again
        purgeB = pool.submit(() -> store.purgeExpired(500)); // reads s, h2, r
        Thread.sleep(700); // B deleted s, waits on h2
        release(holderH1);
        holderH1 = null;
        Thread.sleep(500); // A goes on to s: waits on B
        release(holder2);
        holder2 = null; // B goes on to r: waits on A
      } finally {
        if (holder0 != null) {
          release(holder0);
        }
        if (holderH1 != null) {
          release(holderH1);
        }
        if (holder2 != null) {
          release(holder2);
        }
      }
      Throwable failed = null;
      for (Future<Integer> purge : List.of(purgeA, purgeB)) {
        try {
          purge.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          failed = e.getCause();
        }
      }
      assertThat(failed).as("a failure of one of two concurrent purges").isNull();
    } finally {
      pool.shutdownNow();
    }
  }
}
