package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.ClaimsTableException;
import dev.mcpgate.jdbc.JdbcDialect;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review: {@code verify()} compares only the names and the widths of VARCHAR/VARBINARY columns; the
 * type of the epoch-millisecond columns is not looked at. A claims table whose {@code
 * expires_at_ms} and {@code lease_expires_at_ms} are INT (a hand-written table, or one a DBA
 * "optimised") passes {@code verify()}. On a MariaDB/MySQL session without STRICT_TRANS_TABLES
 * (sql_mode '' or NO_ENGINE_SUBSTITUTION alone, MySQL 5.6's default and common on legacy servers;
 * the store never sets its own sql_mode) every time is silently clamped to 2147483647, a moment in
 * January 1970: every completed row is expired as soon as it is written, and a retry with the same
 * key and arguments runs the action again. (Found in review; {@code verify()} now refuses a time
 * column that is not BIGINT, naming it and the statement that mends it.)
 */
class TimeColumnTypesReviewTest {

  @Test
  void aRetryOfACompletedCallIsNeverRunAgain() throws Exception {
    String url = ReviewDatabases.url("MCPGATE_TEST_MARIADB_URL");
    String table = "rv_int_" + Long.toHexString(System.nanoTime());
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(2);
    config.setPoolName("review-nonstrict");
    config.setConnectionInitSql("SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'");
    try (HikariDataSource ds = new HikariDataSource(config)) {
      String ddl =
          JdbcDialect.MARIADB
              .ddl(table)
              .replace("lease_expires_at_ms BIGINT", "lease_expires_at_ms INT   ")
              .replace("expires_at_ms       BIGINT", "expires_at_ms       INT   ");
      assertThat(ddl).contains("expires_at_ms       INT");
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        for (String s : ddl.split(";")) {
          if (!s.isBlank()) {
            st.execute(s);
          }
        }
      }
      JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(table).build();
      try {
        try {
          store.verify();
        } catch (ClaimsTableException refused) {
          assertThat(refused)
              .hasMessageContaining("lease_expires_at_ms is INT")
              .hasMessageContaining("where this version needs BIGINT");
          return; // the promise kept: the table is refused, naming why
        }
        IdempotencyGate gate = IdempotencyGate.builder(store).build();
        AtomicInteger runs = new AtomicInteger();
        ToolCall call =
            ToolCall.of("acme", "refund_order", "k-" + UUID.randomUUID(), Map.of("order_id", "o1"));
        GateResult<String> first =
            gate.execute(call, ResultMapper.utf8(), ctx -> "refund " + runs.incrementAndGet());
        GateResult<String> retry =
            gate.execute(call, ResultMapper.utf8(), ctx -> "refund " + runs.incrementAndGet());
        assertThat(first).isInstanceOf(GateResult.Executed.class);
        assertThat(retry)
            .as(
                "a retry of a completed call (same key and arguments) on a table verify() passed;"
                    + " the action ran %s times",
                runs.get())
            .isInstanceOf(GateResult.Replayed.class);
      } finally {
        store.close();
        try (Connection c = ds.getConnection();
            Statement st = c.createStatement()) {
          st.execute("DROP TABLE IF EXISTS " + table);
        }
      }
    }
  }
}
