package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store contract on a real PostgreSQL server, and what PostgreSQL lets us prove about the
 * claim's cost: a replay assigns no transaction id and writes no WAL, and a completion is a HOT
 * update.
 */
class PostgresStoreTest extends JdbcStoreContract {

  @Override
  public TestDatabases.Target target() {
    return TestDatabases.postgres();
  }

  @Override
  HikariDataSource dataSource() {
    return TestDatabases.pool(TestDatabases.postgres(), "postgres", 24);
  }

  @Override
  int[] expectedStatementsFreshAndReplay() {
    // claim (one INSERT ... ON CONFLICT DO NOTHING that reads an existing row back) and
    // complete; a replay is the claim alone
    return new int[] {2, 1};
  }

  /** A store on a table of its own, with autovacuum off, so that nothing else writes to it. */
  private JdbcIdempotencyStore quietStore(String table) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + table);
    }
    JdbcIdempotencyStore s =
        closedAfterTest(
            JdbcIdempotencyStore.builder(dataSource())
                .tableName(table)
                .createSchemaIfMissing(true)
                .build());
    s.verify(); // creates the table
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
    }
    return s;
  }

  private static Object query(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getObject(1);
    }
  }

  @Test
  void replayConflictAndInFlightAnswersAssignNoTransactionId() throws Exception {
    SqlDialect sql = JdbcDialect.POSTGRESQL.sql(TABLE, false);
    ToolCall done = call("ro-done", Map.of("a", 1));
    IdempotencyGate.builder(store).build().execute(done, ResultMapper.utf8(), ctx -> "r");
    ToolCall running = call("ro-running", Map.of("a", 1));
    IdempotencyGate.builder(store).build().claim(running);
    String hash = ArgumentHasher.hash(Map.of("a", 1), Set.of());

    for (String[] probe :
        new String[][] {
          {"replay", "ro-done", hash},
          {"conflict", "ro-done", "v1:other"},
          {"in flight", "ro-running", hash}
        }) {
      try (Connection c = dataSource().getConnection()) {
        c.setAutoCommit(false);
        try {
          ClaimAttempt attempt =
              sql.claim(
                  c, new ClaimRequest(id(probe[1]), probe[2], LeaseToken.random(), LONG, LONG));
          assertThat(attempt).as(probe[0]).isInstanceOf(ClaimAttempt.Existing.class);
          assertThat(query(c, "SELECT txid_current_if_assigned()")).as(probe[0]).isNull();
        } finally {
          c.rollback();
          c.setAutoCommit(true);
        }
      }
    }
  }

  @Test
  void aThousandReplaysWriteNoWal() throws Exception {
    JdbcIdempotencyStore quiet = quietStore("mcpgate_wal_test");
    IdempotencyGate gate = IdempotencyGate.builder(quiet).build();
    ToolCall call = call("wal", Map.of("order_id", "ord_9f2"));
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-1");
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-2"); // sets hint bits, if any

    // The WAL position is the server's: other sessions (a checkpoint, a neighbour's autovacuum,
    // another module's tests on a shared server) write too. So the least of three runs counts:
    // if the replays wrote, every run would log at least 1000 commit records (tens of KB).
    long walBytes = Long.MAX_VALUE;
    try (Connection c = dataSource().getConnection()) {
      for (int run = 0; run < 3 && walBytes >= 16 * 1024; run++) {
        String lsn = (String) query(c, "SELECT pg_current_wal_lsn()::text");
        for (int i = 0; i < 1000; i++) {
          assertThat(gate.execute(call, ResultMapper.utf8(), ctx -> "again"))
              .isInstanceOf(GateResult.Replayed.class);
        }
        long logged =
            ((Number) query(c, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + lsn + "')"))
                .longValue();
        walBytes = Math.min(walBytes, logged);
      }
    }
    assertThat(walBytes).as("WAL bytes over 1000 replays").isLessThan(16 * 1024);
  }

  @Test
  void completionIsAHotUpdate() throws Exception {
    JdbcIdempotencyStore quiet = quietStore("mcpgate_hot_test");
    TestDatabases.Target target = TestDatabases.postgres();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(target.url());
    config.setUsername(target.user());
    config.setPassword(target.password());
    config.setMaximumPoolSize(2); // one for the calls, one the store keeps for renewals
    try (HikariDataSource one = new HikariDataSource(config);
        JdbcIdempotencyStore single =
            JdbcIdempotencyStore.builder(one).tableName(quiet.tableName()).build()) {
      IdempotencyGate gate = IdempotencyGate.builder(single).build();
      int calls = 200;
      for (int i = 0; i < calls; i++) {
        gate.execute(call("hot-" + i, Map.of("i", i)), ResultMapper.utf8(), ctx -> "done");
      }
      long[] counts = updateCounts(one, quiet.tableName(), calls);
      assertThat(counts[0]).as("updates").isGreaterThanOrEqualTo(calls);
      assertThat(counts[1])
          .as("HOT updates of %s", counts[0])
          .isGreaterThanOrEqualTo(counts[0] * 9 / 10);
    }
  }

  @Test
  void afterAKilledProcessTheSingleCommitRetryRunsOnceAtOnce() throws Exception {
    TestDatabases.Target target = TestDatabases.postgres();
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                SingleCommitChild.class.getName(),
                target.url(),
                target.user() == null ? "" : target.user(),
                target.password() == null ? "" : target.password(),
                tenant,
                "crash-1")
            .redirectErrorStream(true)
            .start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      do {
        line = out.readLine();
      } while (line != null && !line.equals("ACTING"));
      assertThat(line).as("the child reached its action").isEqualTo("ACTING");
      child.destroyForcibly(); // SIGKILL: no rollback from the child, no goodbye
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }

    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate =
        IdempotencyGate.builder(jdbc)
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(5)).build())
            .build();
    long started = System.nanoTime();
    GateResult<String> retry =
        gate.executeSingleCommit(
            ToolCall.of(tenant, "stop_session", "crash-1", Map.of()),
            ResultMapper.utf8(),
            jdbc.singleCommit(),
            (c, ctx) -> {
              insertEffect(c, "retry");
              return "stopped by the retry, attempt " + ctx.attempt();
            });
    long tookMs = (System.nanoTime() - started) / 1_000_000;

    assertThat(retry)
        .as("after %s ms", tookMs)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.value()).isEqualTo("stopped by the retry, attempt 1"));
    assertThat(effects()).as("the killed process's write rolled back").containsExactly("retry");
  }

  /** {n_tup_upd, n_tup_hot_upd}, once the statistics show at least {@code expected} updates. */
  private static long[] updateCounts(HikariDataSource one, String table, int expected)
      throws Exception {
    long[] counts = {0, 0};
    for (int round = 0; round < 150 && counts[0] < expected; round++) {
      try (Connection c = one.getConnection();
          Statement st = c.createStatement()) {
        try {
          st.execute("SELECT pg_stat_force_next_flush()"); // PostgreSQL 15 and later
        } catch (SQLException olderServer) {
          // the statistics arrive on their own, within seconds
        }
        st.execute("SELECT pg_stat_clear_snapshot()");
        try (ResultSet rs =
            st.executeQuery(
                "SELECT n_tup_upd, n_tup_hot_upd"
                    + " FROM pg_stat_user_tables WHERE relname = '"
                    + table
                    + "'")) {
          if (rs.next()) {
            counts = new long[] {rs.getLong(1), rs.getLong(2)};
          }
        }
      }
      if (counts[0] < expected) {
        Thread.sleep(100);
      }
    }
    return counts;
  }
}
