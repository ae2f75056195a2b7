package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRequest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A review of the MariaDB purge's DELETE of many rows (1d48bba): a statement slowed on one row (a
 * trigger sleeps) held every row it had deleted or named until it ended, and a statement of long
 * keys outgrew a small {@code max_allowed_packet}. Each case failed there and passed with a DELETE
 * a row; they pass now that MariaDB stops such a statement after {@link
 * MySqlFamilyPurge#STATEMENT_SECONDS} s (its rows then go one at a time) and a statement names at
 * most {@link MySqlFamilyPurge#BYTES_PER_DELETE} bytes.
 */
class MariaDbPurgeGroupReviewTest {
  private static final String TABLE = "rvg_purge_group";

  /**
   * A statement of the purge that is slow on one of its rows (here a trigger sleeps 1.5 s on the
   * row "z-slow": a stand-in for a row whose DELETE takes long, such as a large result's
   * before-image under binlog_format=ROW, a descheduled server thread, innodb_max_purge_lag) keeps
   * every row it already deleted locked until it commits. A zero-wait single-commit call of "a", an
   * expired key the purge deleted before it came to "z-slow", is then refused as "another
   * transaction holds the same key"; nothing holds it. With a DELETE a row, "a" was gone and
   * committed before "z-slow"'s DELETE began, and the call ran.
   */
  @Test
  void aKeyTheStatementAlreadyDeletedIsNotRefusedWhileTheStatementGoesOn() throws Exception {
    String tenant = "rvg-" + UUID.randomUUID();
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
        MariaDbPurgeFixtures.slowOn(ds, TABLE, "z-slow", 1.5);
        try {
          MariaDbPurgeFixtures.runEach(setup, a, slow);
          Thread.sleep(300); // both expired
          Future<Integer> purge = threads.submit(() -> store.purgeExpired(500));
          // the purge is on "z-slow" longer than a group statement may run: "a" went before it
          MariaDbPurgeFixtures.awaitSleepingFor(ds, Duration.ofMillis(300));
          GateResult<String> result =
              gate.executeSingleCommit(
                  a, ResultMapper.utf8(), store.singleCommit(), (c, ctx) -> "new");
          assertThat(purge.get(30, TimeUnit.SECONDS)).isEqualTo(2);
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

  /**
   * The same slow row, with a live lease: x expired and was read by the purge, then taken over by
   * gate A (lease 2 s, a 6 s action, renewed every 500 ms) while the purge's first statement was
   * slow on "m-slow". The purge's next statement names x by its old token (it deletes nothing of
   * it) and, under REPEATABLE READ, keeps x locked while it is slow on "z-slow" (4 s). Every
   * renewal of A's lease fails on that lock (lock wait 0), the lease runs out in the table, and
   * gate B's call of the same intent takes x over and runs the effect while A's still runs. With a
   * DELETE a row, x was locked only for its own DELETE and A's renewals went through. (The 4 s
   * stretch is exaggerated; it shows what a statement slower than a lease costs.)
   */
  @Test
  void aLiveLeaseIsNotTakenOverBehindASlowPurgeStatement() throws Exception {
    String tenant = "rvg-" + UUID.randomUUID();
    Map<String, ?> args = Map.of("order_id", "ord_1");
    ExecutorService threads = Executors.newCachedThreadPool();
    AtomicInteger effects = new AtomicInteger();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 8, "");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      GatePolicy live = MariaDbPurgeFixtures.zeroWait(Duration.ofSeconds(2));
      // group 1 (the oldest): f-00.. and m-slow; group 2: x and z-slow
      ToolCall x = ToolCall.of(tenant, "refund_order", "x", args);
      try (IdempotencyGate setup =
              IdempotencyGate.builder(store).policy(MariaDbPurgeFixtures.SHORT_LIVED).build();
          IdempotencyGate gateA = IdempotencyGate.builder(store).policy(live).build();
          IdempotencyGate gateB = IdempotencyGate.builder(store).policy(live).build()) {
        MariaDbPurgeFixtures.slowOn(ds, TABLE, "m-slow", 1.5, "z-slow", 4.0);
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
          Thread.sleep(500); // the purge read x (old token) and is slow on m-slow
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
                            Thread.sleep(6000);
                            return "a";
                          }));
          assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
          Thread.sleep(4000); // m-slow done; the next statement locks x, is slow on z-slow
          GateResult<String> resultB;
          try {
            resultB =
                gateB.execute(
                    x,
                    ResultMapper.utf8(),
                    ctx -> {
                      effects.incrementAndGet();
                      return "b";
                    });
          } catch (RuntimeException e) {
            resultB = null;
          }
          purge.get(30, TimeUnit.SECONDS);
          GateResult<String> a = resultA.get(30, TimeUnit.SECONDS);
          assertThat(effects.get())
              .as("effects of one intent; A told %s, B told %s", a, resultB)
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
   * A server whose max_allowed_packet is 64 KiB (told to the driver here with its {@code
   * maxAllowedPacket} option, as the server's value is global): keys of 255 characters of three
   * UTF-8 bytes each make a row's DELETE about 2.3 KB, and a statement of 50 rows about 115 KB. The
   * group statement fails ("Packet too big", SQLState HZ000: not a timeout), so the purge fails; it
   * reads the same oldest rows next time, and fails again for as long as they are there. A DELETE a
   * row fits.
   */
  @Test
  void aPurgeOfLongKeysFitsASmallMaxAllowedPacket() throws Exception {
    String tenant = "rvg-" + UUID.randomUUID();
    String cjk = "\u6F22".repeat(ClaimId.MAX_LENGTH - 4);
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 2, "&maxAllowedPacket=65536");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      for (int i = 0; i < MySqlFamilyPurge.ROWS_PER_DELETE; i++) {
        store.claim(
            new ClaimRequest(
                new ClaimId(tenant + cjk.substring(0, 200), cjk, String.format("%04d", i) + cjk),
                "v1:a",
                LeaseToken.random(),
                Duration.ofMillis(100),
                Duration.ofMillis(100)));
      }
      Thread.sleep(300);
      Object purged;
      try {
        purged = store.purgeExpired(500);
      } catch (RuntimeException e) {
        purged = e;
      }
      assertThat(purged)
          .as("a purge of expired rows with long keys")
          .isEqualTo(MySqlFamilyPurge.ROWS_PER_DELETE);
    }
  }
}
