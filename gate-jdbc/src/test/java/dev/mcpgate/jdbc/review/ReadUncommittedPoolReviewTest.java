package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review: the store never looked at the isolation of the connections it claims on. A pool at READ
 * UNCOMMITTED (HikariCP {@code transactionIsolation}) made the claim's read a dirty read: it saw a
 * single-commit call's completed row before that call committed and replayed it, and when the
 * commit then failed (a cut connection, a Galera certification failure) the caller had been told a
 * result of an intent that never took effect (shown against MariaDB with a held commit). The store
 * now refuses such connections at setup, before any claim, naming the isolation.
 */
class ReadUncommittedPoolReviewTest {

  @Test
  void aPoolThatReadsUncommittedRowsIsRefusedBeforeAnyClaim() throws Exception {
    String table = "rv_dirty_" + Long.toHexString(System.nanoTime());
    HikariConfig dirtyConfig = new HikariConfig();
    dirtyConfig.setJdbcUrl(ReviewDatabases.url("MCPGATE_TEST_MARIADB_URL"));
    dirtyConfig.setMaximumPoolSize(2);
    dirtyConfig.setPoolName("review-dirty");
    dirtyConfig.setTransactionIsolation("TRANSACTION_READ_UNCOMMITTED");
    try (HikariDataSource dirty = new HikariDataSource(dirtyConfig)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(dirty).tableName(table).createSchemaIfMissing(true).build();
      AtomicInteger runs = new AtomicInteger();
      try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
        assertThatThrownBy(store::verify)
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("READ UNCOMMITTED")
            .hasMessageContaining(table);
        GateResult<String> r =
            gate.execute(
                ToolCall.of("acme", "refund_order", "k-" + UUID.randomUUID(), Map.of("o", 1)),
                ResultMapper.utf8(),
                ctx -> "refunded " + runs.incrementAndGet());
        assertThat(r)
            .isInstanceOfSatisfying(
                GateResult.Failed.class,
                f -> {
                  assertThat(f.reason()).isEqualTo(FailureReason.STORE_UNAVAILABLE);
                  assertThat(f.effect()).isEqualTo(GateResult.Effect.NO);
                });
        assertThat(runs).hasValue(0);
      } finally {
        store.close();
        try (Connection c = dirty.getConnection();
            Statement st = c.createStatement()) {
          st.execute("DROP TABLE IF EXISTS " + table);
        }
      }
    }
  }
}
