package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A second review of the MariaDB purge's DELETE of many rows (e83bfd2, which stopped a statement
 * after 0.25 s under REPEATABLE READ). A lease shorter than that was taken over behind a slow
 * statement that named its row (the effect ran twice), and a key a statement had deleted was
 * refused as in flight until the statement was stopped. Now a statement runs under READ COMMITTED
 * (it lets go of a named row that no longer matches at once) and is stopped after {@link
 * MySqlFamilyPurge#STATEMENT_SECONDS} s. The two guards beside them passed there too.
 */
class MariaDbPurgeGroup2ReviewTest {
  private static final String TABLE = "rvg2_purge_group";

  /**
   * Passes (a guard, not a finding): the first review's zero-wait case with the driver's
   * server-side prepared statements ({@code useServerPrepStmts=true}, a common pool setting): does
   * {@code SET STATEMENT max_statement_time} still stop the group statement?
   */
  @Test
  void theStatementLimitHoldsWithServerPreparedStatements() throws Exception {
    String tenant = "rvg2-" + UUID.randomUUID();
    Map<String, ?> args = Map.of("order_id", "ord_1");
    ToolCall a = ToolCall.of(tenant, "refund_order", "a", args);
    ToolCall slow = ToolCall.of(tenant, "refund_order", "z-slow", args);
    ExecutorService threads = Executors.newCachedThreadPool();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 6, "&useServerPrepStmts=true");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      GatePolicy zeroWait = MariaDbPurgeFixtures.zeroWait(Duration.ofSeconds(10));
      try (IdempotencyGate setup =
              IdempotencyGate.builder(store).policy(MariaDbPurgeFixtures.SHORT_LIVED).build();
          IdempotencyGate gate = IdempotencyGate.builder(store).policy(zeroWait).build()) {
        MariaDbPurgeFixtures.slowOn(ds, TABLE, "z-slow", 1.5);
        try {
          MariaDbPurgeFixtures.runEach(setup, a, slow);
          Thread.sleep(300);
          Future<Integer> purge = threads.submit(() -> store.purgeExpired(500));
          MariaDbPurgeFixtures.awaitSleepingFor(ds, Duration.ofMillis(300));
          GateResult<String> result =
              gate.executeSingleCommit(
                  a, ResultMapper.utf8(), store.singleCommit(), (c, ctx) -> "new");
          purge.get(30, TimeUnit.SECONDS);
          assertThat(result).isInstanceOf(GateResult.Executed.class);
        } finally {
          MariaDbPurgeFixtures.dropSlow(ds, TABLE);
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Passes (a guard, not a finding: with the purge's lock wait 0 it never waits, so it is never in
   * a deadlock's cycle; it gets 1205 and T gets "a" once the statement is undone). A DELETE a row
   * holds one row at a time and so can never be in a deadlock. A group statement holds "a"
   * (deleted) while it asks for "z"; a transaction T that holds "z" (a single-commit takeover in
   * flight, here FOR UPDATE) and then asks for "a" (lock wait 20 s: a single-commit claim that
   * waits for in-flight calls) closes the cycle. The purge's lock wait is 0, yet InnoDB may choose
   * T, the lighter transaction, as the victim: T's whole transaction is rolled back with 1213,
   * which the claim path takes for a lost race (isLostRace) and goes round in a fresh transaction.
   * The trigger's 0.15 s sleep on "m-slow" (the statement is stopped at {@link
   * MySqlFamilyPurge#STATEMENT_SECONDS} s) only widens the window in which T's request comes.
   */
  @Test
  void aTransactionIsNeverMadeADeadlockVictimByThePurge() throws Exception {
    String tenant = "rvg2-" + UUID.randomUUID();
    ExecutorService threads = Executors.newCachedThreadPool();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 6, "");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      ClaimId a = new ClaimId(tenant, "refund_order", "a");
      ClaimId z = new ClaimId(tenant, "refund_order", "z");
      for (String key : new String[] {"a", "m-slow", "y", "z"}) {
        MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "refund_order", key));
      }
      Thread.sleep(300);
      MariaDbPurgeFixtures.slowOn(ds, TABLE, "m-slow", 0.15);
      try (Connection t = MariaDbPurgeFixtures.hold(ds, TABLE, z)) {
        Future<Integer> purge = threads.submit(() -> store.purgeExpired(500));
        Thread.sleep(25); // the purge's statement deleted "a" and sleeps on "m-slow"
        Object outcome;
        try (PreparedStatement ps =
            t.prepareStatement(
                "SELECT * FROM "
                    + TABLE
                    + " WHERE tenant = ? AND tool = ? AND idem_key = ? FOR UPDATE")) {
          ClaimRows.bindKey(ps, 1, a);
          ps.executeQuery().close();
          outcome = "locked";
        } catch (SQLException e) {
          outcome = "error " + e.getErrorCode() + ": " + e.getMessage();
        }
        t.rollback();
        Integer purged = purge.get(30, TimeUnit.SECONDS);
        assertThat(outcome)
            .as("T's request for a row the purge's statement holds (purged %s)", purged)
            .isEqualTo("locked");
      } finally {
        MariaDbPurgeFixtures.dropSlow(ds, TABLE);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * A statement's time limit is not tied to the lease. A policy may lease for well under a second
   * (GatePolicy allows any lease of 1 ms or more). The purge read x (expired), then gate A took x
   * over and runs its effect. The purge's statement of (x, z-slow) names x by its old token and is
   * slow on z-slow (1 s). Under REPEATABLE READ it kept x locked until MariaDB stopped it (0.25 s
   * at e83bfd2, when this review leased for 100 ms): A's renewals (lock wait 0) failed for longer
   * than the lease, and gate B's call of the same intent took x over and ran the effect a second
   * time. Now the statement runs under READ COMMITTED (it lets go of x as soon as it finds it no
   * longer matches) and is stopped after {@link MySqlFamilyPurge#STATEMENT_SECONDS} s. The lease
   * here is 400 ms (renewed every 100 ms): a 100 ms lease was also taken over when a healthy server
   * stalled A's renewals for 75 ms, which a loaded machine may do in the 2 s that B tries; with
   * neither guard, x is held for the whole 1 s sleep and this lease is taken over too.
   */
  @Test
  void aShortLeaseIsNotTakenOverBehindAStoppedPurgeStatement() throws Exception {
    String tenant = "rvg2-" + UUID.randomUUID();
    Map<String, ?> args = Map.of("order_id", "ord_1");
    ExecutorService threads = Executors.newCachedThreadPool();
    java.util.concurrent.atomic.AtomicInteger effects =
        new java.util.concurrent.atomic.AtomicInteger();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 8, "");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      GatePolicy short400 = MariaDbPurgeFixtures.zeroWait(Duration.ofMillis(400));
      ToolCall x = ToolCall.of(tenant, "refund_order", "x", args);
      try (IdempotencyGate setup =
              IdempotencyGate.builder(store).policy(MariaDbPurgeFixtures.SHORT_LIVED).build();
          IdempotencyGate gateA = IdempotencyGate.builder(store).policy(short400).build();
          IdempotencyGate gateB = IdempotencyGate.builder(store).policy(short400).build()) {
        // group 1 (m-slow among them): stopped, then a row at a time, m-slow sleeping 1 s; group
        // 2: x and z-slow
        MariaDbPurgeFixtures.slowOn(ds, TABLE, "m-slow", 1.0, "z-slow", 1.0);
        try {
          for (int i = 0; i < MySqlFamilyPurge.ROWS_PER_DELETE - 1; i++) {
            MariaDbPurgeFixtures.expiring(
                store, new ClaimId(tenant, "refund_order", String.format("f-%02d", i)));
          }
          MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "refund_order", "m-slow"));
          MariaDbPurgeFixtures.runEach(setup, x);
          MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "refund_order", "z-slow"));
          Thread.sleep(300); // all expired
          Future<Integer> purge = threads.submit(() -> store.purgeExpired(500));
          Thread.sleep(450); // the purge read x and is on m-slow, a row at a time
          java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
          Future<GateResult<String>> resultA =
              threads.submit(
                  () ->
                      gateA.execute(
                          x,
                          ResultMapper.utf8(),
                          ctx -> {
                            effects.incrementAndGet();
                            started.countDown();
                            Thread.sleep(3000);
                            return "a";
                          }));
          assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
          java.util.List<Object> bTold = new java.util.ArrayList<>();
          long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
          while (System.nanoTime() < until && effects.get() < 2) {
            try {
              bTold.add(
                  gateB
                      .execute(
                          x,
                          ResultMapper.utf8(),
                          ctx -> {
                            effects.incrementAndGet();
                            return "b";
                          })
                      .getClass()
                      .getSimpleName());
            } catch (RuntimeException e) {
              bTold.add(e.getClass().getSimpleName());
            }
            Thread.sleep(20);
          }
          purge.get(30, TimeUnit.SECONDS);
          GateResult<String> a = resultA.get(30, TimeUnit.SECONDS);
          assertThat(effects.get())
              .as(
                  "effects of one intent; A told %s, B told %s",
                  a, new java.util.LinkedHashSet<>(bTold))
              .isEqualTo(1);
        } finally {
          MariaDbPurgeFixtures.dropSlow(ds, TABLE);
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * The purge's statement deleted "a" (expired), then is slow on "z-slow" (a trigger sleeps 1 s):
   * it holds "a" until MariaDB stops it, and a zero-wait single-commit call of "a" meanwhile is
   * refused as in flight, told to retry (at e83bfd2 for 0.25 s; a call 100 ms in was refused). Once
   * the statement is stopped, "a" goes in a DELETE of its own and the call runs: here once a
   * trigger sleep has lasted 100 ms, twice the limit of {@link MySqlFamilyPurge#STATEMENT_SECONDS}
   * s.
   */
  @Test
  void aKeyTheStatementDeletedIsFreeSoonAfterTheStatementIsStopped() throws Exception {
    String tenant = "rvg2-" + UUID.randomUUID();
    Map<String, ?> args = Map.of("order_id", "ord_1");
    ToolCall a = ToolCall.of(tenant, "refund_order", "a", args);
    ToolCall slow = ToolCall.of(tenant, "refund_order", "z-slow", args);
    ExecutorService threads = Executors.newCachedThreadPool();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 6, "");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      GatePolicy zeroWait = MariaDbPurgeFixtures.zeroWait(Duration.ofSeconds(10));
      try (IdempotencyGate setup =
              IdempotencyGate.builder(store).policy(MariaDbPurgeFixtures.SHORT_LIVED).build();
          IdempotencyGate gate = IdempotencyGate.builder(store).policy(zeroWait).build()) {
        MariaDbPurgeFixtures.slowOn(ds, TABLE, "z-slow", 1.0);
        try {
          MariaDbPurgeFixtures.runEach(setup, a, slow);
          Thread.sleep(300);
          Future<Integer> purge = threads.submit(() -> store.purgeExpired(500));
          // a trigger sleep of 100 ms is longer than a group statement may run: the statement that
          // deleted "a" was stopped, "a" went in a DELETE of its own, and "z-slow" sleeps in its
          // own
          MariaDbPurgeFixtures.awaitSleepingFor(ds, Duration.ofMillis(100));
          GateResult<String> result =
              gate.executeSingleCommit(
                  a, ResultMapper.utf8(), store.singleCommit(), (c, ctx) -> "new");
          purge.get(30, TimeUnit.SECONDS);
          assertThat(result)
              .as("a single-commit call of an expired key the purge already deleted")
              .isInstanceOf(GateResult.Executed.class);
        } finally {
          MariaDbPurgeFixtures.dropSlow(ds, TABLE);
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }
}
