package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.sql.Connection;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A replay on MariaDB is a consistent SELECT, which no table lock blocks: it is answered while the
 * table is read-locked ({@code LOCK TABLES .. READ}, as a plain mysqldump does). A one-statement
 * claim tried at 8fd90f1 (INSERT .. ON DUPLICATE KEY UPDATE .. RETURNING) waited here for up to
 * {@code lock_wait_timeout} (86,400 s by default) and was taken back; see docs/stores.md.
 */
class MariaDbReplayUnderTableLockTest {
  private static final String TABLE = "mcpgate_rv_tablelock";

  @Test
  void aReplayIsAnsweredWhileTheTableIsReadLocked() throws Exception {
    HikariDataSource ds = MariaDbPurgeFixtures.pool(50, 4, "");
    JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE);
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    ToolCall call =
        ToolCall.of("rv-" + UUID.randomUUID(), "refund", "k-1", Map.of("order_id", "ord_1"));
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-1");
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try (Connection holder = ds.getConnection()) {
      // what mysqldump without --single-transaction does to each table it dumps
      SqlDialect.run(holder, "LOCK TABLES " + TABLE + " READ");
      try {
        Future<GateResult<String>> replay =
            caller.submit(() -> gate.execute(call, ResultMapper.utf8(), ctx -> "refund-2"));
        long started = System.nanoTime();
        boolean answered;
        try {
          replay.get(5, TimeUnit.SECONDS);
          answered = true;
        } catch (java.util.concurrent.TimeoutException e) {
          answered = false;
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertThat(answered)
            .as(
                "a replay (read-only before 8fd90f1) answered under a table read lock; waited %d"
                    + " ms",
                ms)
            .isTrue();
        assertThat(replay.get()).isInstanceOf(GateResult.Replayed.class);
      } finally {
        SqlDialect.run(holder, "UNLOCK TABLES");
      }
    } finally {
      caller.shutdownNow();
      caller.awaitTermination(10, TimeUnit.SECONDS);
      gate.close();
      store.close();
      ds.close();
    }
  }
}
