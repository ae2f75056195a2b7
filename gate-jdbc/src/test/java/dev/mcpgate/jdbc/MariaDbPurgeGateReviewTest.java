package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB/MySQL purge holds no row of a live lease and waits on no row, end to end through the
 * gate. A purge whose batch of DELETEs ran as one transaction under REPEATABLE READ, waiting on
 * held rows (tried, and taken back), kept a row it did not delete locked while it waited on another
 * row, and a live long action was taken over (its effect ran twice); the purge now deletes in
 * auto-committed statements that wait on nothing ({@code MariaDbPurgeBatchTest}). Rows l1, x, l2
 * are expired, l1 and l2 locked by in-flight transactions (as single-commit takeovers of them would
 * be). The purge reads the three and waits on l1; gate A's call takes x over (lease 2 s) and runs a
 * 6 s action; l1's holder ends, the purge's DELETE of x (the old token) deletes nothing but keeps x
 * locked under REPEATABLE READ while it waits on l2. Every renewal of A's lease fails on that lock
 * (lock wait 0); the lease runs out in the table; gate B's call of the same intent takes x over
 * once the purge commits, and runs the effect while A's is still running.
 */
class MariaDbPurgeGateReviewTest {
  private static final String TABLE = "mcpgate_purge_review";

  @Test
  void aLiveLongActionIsNotTakenOverBehindThePurge() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    Map<String, ?> args = Map.of("order_id", "ord_1");
    ToolCall l1 = ToolCall.of(tenant, "refund_order", "l1", args);
    ToolCall x = ToolCall.of(tenant, "refund_order", "x", args);
    ToolCall l2 = ToolCall.of(tenant, "refund_order", "l2", args);
    ExecutorService threads = Executors.newCachedThreadPool();
    AtomicInteger effects = new AtomicInteger();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 8, "");
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds).tableName(TABLE).createSchemaIfMissing(true).build()) {
      GatePolicy live = MariaDbPurgeFixtures.zeroWait(Duration.ofSeconds(2));
      try (IdempotencyGate setup =
              IdempotencyGate.builder(store).policy(MariaDbPurgeFixtures.SHORT_LIVED).build();
          IdempotencyGate gateA = IdempotencyGate.builder(store).policy(live).build();
          IdempotencyGate gateB = IdempotencyGate.builder(store).policy(live).build()) {
        MariaDbPurgeFixtures.runEach(setup, l1, x, l2);
        Thread.sleep(300); // all three expired
        Connection holder1 = hold(ds, l1);
        Connection holder2 = hold(ds, l2);
        Future<Integer> purge;
        Future<GateResult<String>> a;
        Future<GateResult<String>> b;
        try {
          purge = threads.submit(() -> store.purgeExpired(500));
          Thread.sleep(700); // the purge read l1, x, l2 and waits on l1
          CountDownLatch started = new CountDownLatch(1);
          a =
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
          holder1.rollback();
          holder1.close();
          holder1 = null;
          Thread.sleep(3500); // A's lease (2 s) would have run out without its renewals
          b =
              threads.submit(
                  () ->
                      gateB.execute(
                          x,
                          ResultMapper.utf8(),
                          ctx -> {
                            effects.incrementAndGet();
                            return "b";
                          }));
          Thread.sleep(300);
        } finally {
          if (holder1 != null) {
            holder1.rollback();
            holder1.close();
          }
          holder2.rollback();
          holder2.close();
        }
        purge.get(30, TimeUnit.SECONDS);
        GateResult<String> resultB = b.get(30, TimeUnit.SECONDS);
        GateResult<String> resultA = a.get(30, TimeUnit.SECONDS);
        assertThat(effects.get())
            .as("effects of one intent; A told %s, B told %s", resultA, resultB)
            .isEqualTo(1);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static Connection hold(HikariDataSource ds, ToolCall call) throws Exception {
    return MariaDbPurgeFixtures.hold(ds, TABLE, call.id());
  }

  /**
   * A single-commit call (zero in-flight wait) of a free key is refused as if another attempt were
   * in flight: the key m-x was taken over and released since the purge's read; the purge's DELETE
   * of it finds no live row and keeps its lock (the delete-marked record, or the gap) under
   * REPEATABLE READ until the batch commits, and the batch waits on another row's holder. The
   * call's INSERT of m-x gives up at once (lock wait 0), which the store reports as a busy key and
   * the gate as "another transaction holds the same key". Nothing holds the key.
   */
  @Test
  void aSingleCommitCallOfAReleasedKeyIsNotRefusedBehindThePurge() throws Exception {
    String tenant = "review-" + UUID.randomUUID();
    Map<String, ?> args = Map.of("order_id", "ord_1");
    ToolCall l1 = ToolCall.of(tenant, "refund_order", "a-l1", args);
    ToolCall x = ToolCall.of(tenant, "refund_order", "m-x", args);
    ToolCall l2 = ToolCall.of(tenant, "refund_order", "z-l2", args);
    ExecutorService threads = Executors.newCachedThreadPool();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(20, 8, "");
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds).tableName(TABLE).createSchemaIfMissing(true).build()) {
      GatePolicy live = MariaDbPurgeFixtures.zeroWait(Duration.ofSeconds(10));
      try (IdempotencyGate setup =
              IdempotencyGate.builder(store).policy(MariaDbPurgeFixtures.SHORT_LIVED).build();
          IdempotencyGate gate = IdempotencyGate.builder(store).policy(live).build()) {
        MariaDbPurgeFixtures.runEach(setup, l1, x, l2);
        Thread.sleep(300);
        Connection holder1 = hold(ds, l1);
        Connection holder2 = hold(ds, l2);
        Future<Integer> purge;
        GateResult<String> result;
        try {
          purge = threads.submit(() -> store.purgeExpired(500));
          Thread.sleep(700); // the purge read a-l1, m-x, z-l2 and waits on a-l1
          // m-x is called and its action fails: the claim is released (the row deleted)
          try {
            gate.execute(
                x,
                ResultMapper.utf8(),
                ctx -> {
                  throw new IllegalStateException("declined");
                });
          } catch (RuntimeException ignored) {
            // the failure's own signal
          }
          holder1.rollback();
          holder1.close();
          holder1 = null;
          Thread.sleep(700); // the purge went past m-x and waits on z-l2
          result =
              gate.executeSingleCommit(
                  x, ResultMapper.utf8(), store.singleCommit(), (c, ctx) -> "done");
        } finally {
          if (holder1 != null) {
            holder1.rollback();
            holder1.close();
          }
          holder2.rollback();
          holder2.close();
        }
        purge.get(30, TimeUnit.SECONDS);
        assertThat(result)
            .as("a single-commit call of a key nobody holds")
            .isInstanceOf(GateResult.Executed.class);
      }
    } finally {
      threads.shutdownNow();
    }
  }
}
