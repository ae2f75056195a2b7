package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review (R2): MariaDB Connector/J with {@code useBulkStmts=true} (its default in 3.0 and 3.1, set
 * by users for speed) sends the renewal batch as one bulk command, which fails as a whole when
 * another transaction holds one claim row locked: every lease came back undecided, the rows after
 * the locked one were not extended, and each retry failed the same way, so every running action's
 * lease ran out while one row stayed locked. Now the leases such a batch leaves untold are sent
 * again one statement each (the same zero lock wait, within the try's deadline): a locked row holds
 * back only itself, and no lease is told extended that was not.
 */
class BulkStatementRenewalTest {
  private static final String TABLE = "bulk_statement_renewal";
  private static final Duration LEASE = Duration.ofSeconds(5);

  private static String url(String options) {
    return TestDatabases.mariadb().url() + options;
  }

  private static HikariDataSource pool(String url, int size) {
    TestDatabases.Target target = TestDatabases.mariadb();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (target.user() != null) {
      config.setUsername(target.user());
      config.setPassword(target.password());
    }
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  /**
   * Three leases, the middle row locked by another transaction: the other two are told extended and
   * are, whatever the driver's batch mode; a lease told extended moved by the new lease.
   */
  @ParameterizedTest(name = "options \"{0}\"")
  @ValueSource(strings = {"", "&useBulkStmts=true", "&useBulkStmts=true&useServerPrepStmts=true"})
  void oneLockedRowHoldsBackOnlyItsOwnLease(String options) throws Exception {
    try (HikariDataSource ds = pool(url(options), 3)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).tableName(TABLE).createSchemaIfMissing(true).build();
      List<HeldLease> held = claimThree(store);
      try (Connection locker = ds.getConnection();
          Connection look = ds.getConnection()) {
        long[] before = leases(look, held);
        lock(locker, held.get(1).id());
        ExtendedLeases told =
            store.extendLeases(held, Duration.ofSeconds(60), Duration.ofSeconds(2));
        locker.rollback();
        long[] after = leases(look, held);

        assertThat(told.extended())
            .as("the unlocked rows' leases a and c")
            .contains(held.get(0).token(), held.get(2).token());
        for (int i = 0; i < held.size(); i++) {
          if (told.extended().contains(held.get(i).token())) {
            assertThat(after[i]).as("lease %d told extended", i).isGreaterThan(before[i] + 30_000);
          }
        }
      } finally {
        store.close();
      }
    }
  }

  /**
   * The leases a failed bulk batch left untold are sent again only while the try's deadline is not
   * reached: past it, all stay undecided and the row after the locked one is not extended.
   */
  @Test
  void nothingIsSentAgainPastTheDeadline() throws Exception {
    try (HikariDataSource ds = pool(url("&useBulkStmts=true"), 3)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).tableName(TABLE).createSchemaIfMissing(true).build();
      List<HeldLease> held = claimThree(store);
      store.close();
      MySqlFamilySql sql = new MySqlFamilySql(TABLE, false, true);
      try (Connection renewal = ds.getConnection();
          Connection locker = ds.getConnection();
          Connection look = ds.getConnection()) {
        run(renewal, "SET SESSION innodb_lock_wait_timeout = 0"); // the renewal session
        long before = leases(look, held)[2];
        lock(locker, held.get(1).id());
        ExtendedLeases told =
            sql.extendAll(renewal, held, Duration.ofSeconds(60), 2, System.nanoTime());
        locker.rollback();

        assertThat(told.extended()).as("told extended past the deadline").isEmpty();
        assertThat(told.undecided()).hasSize(3);
        assertThat(leases(look, held)[2]).as("the lease after the locked row").isEqualTo(before);
      }
    }
  }

  /**
   * A failed batch of one lease, its row locked, is not sent again: its one statement failed on its
   * own, and on MySQL another try would wait another second for the lock.
   */
  @Test
  void aFailedBatchOfOneLeaseIsSentOnce() throws Exception {
    try (HikariDataSource ds = pool(url("&useBulkStmts=true"), 3)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).tableName(TABLE).createSchemaIfMissing(true).build();
      List<HeldLease> held = claimThree(store).subList(1, 2);
      store.close();
      MySqlFamilySql sql = new MySqlFamilySql(TABLE, false, true);
      try (Connection renewal = ds.getConnection();
          Connection locker = ds.getConnection()) {
        run(renewal, "SET SESSION innodb_lock_wait_timeout = 0");
        lock(locker, held.get(0).id());
        long updatesBefore = updates(renewal);
        ExtendedLeases told =
            sql.extendAll(
                renewal, held, Duration.ofSeconds(60), 2, System.nanoTime() + 2_000_000_000L);
        long sent = updates(renewal) - updatesBefore;
        locker.rollback();

        assertThat(told.undecided()).containsExactly(held.get(0).token());
        assertThat(sent).as("UPDATE statements the server ran").isEqualTo(1);
      }
    }
  }

  /**
   * End to end: eight live actions on one replica, whose store's pool sends bulk batches, while an
   * application holds another claim row locked for 8 s; another replica retries the eight all
   * along. Each runs once.
   */
  @Test
  void oneLockedRowDoesNotCostTheOtherLiveActionsTheirLeases() throws Exception {
    String tenant = "t-" + UUID.randomUUID();
    int n = 8;
    AtomicInteger[] effects = new AtomicInteger[n];
    ExecutorService threads = Executors.newCachedThreadPool();
    try (HikariDataSource poolA = pool(url("&useBulkStmts=true"), 8);
        HikariDataSource poolB = pool(url(""), 4)) {
      JdbcIdempotencyStore storeA =
          JdbcIdempotencyStore.builder(poolA).tableName(TABLE).createSchemaIfMissing(true).build();
      JdbcIdempotencyStore storeB = JdbcIdempotencyStore.builder(poolB).tableName(TABLE).build();
      IdempotencyGate gateA = IdempotencyGate.builder(storeA).build(); // a lease of 5 s
      IdempotencyGate gateB = IdempotencyGate.builder(storeB).build();
      List<Future<GateResult<String>>> runs = new ArrayList<>();
      List<ToolCall> calls = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        AtomicInteger e = effects[i] = new AtomicInteger();
        ToolCall call = ToolCall.of(tenant, "refund_order", "k" + i, Map.of("order_id", "o" + i));
        calls.add(call);
        runs.add(threads.submit(() -> gateA.execute(call, ResultMapper.utf8(), ctx -> slow(e))));
      }
      ToolCall locked = ToolCall.of(tenant, "refund_order", "locked", Map.of("order_id", "x"));
      Future<GateResult<String>> lockedRun =
          threads.submit(
              () -> gateA.execute(locked, ResultMapper.utf8(), ctx -> slow(new AtomicInteger())));
      Thread.sleep(1500);
      List<String> toldB = new ArrayList<>();
      try (Connection locker = poolB.getConnection()) {
        lock(locker, new ClaimId(tenant, "refund_order", "locked"));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        while (System.nanoTime() < end) {
          for (int i = 0; i < n; i++) {
            AtomicInteger e = effects[i];
            GateResult<String> r =
                gateB.execute(
                    calls.get(i),
                    ResultMapper.utf8(),
                    ctx -> {
                      e.incrementAndGet();
                      return "by-B";
                    });
            if (r instanceof GateResult.Executed<String> executed) {
              toldB.add("k" + i + " executed by B, attempt " + executed.claim().attempt());
            }
          }
          Thread.sleep(200);
        }
        locker.rollback();
      }
      for (Future<GateResult<String>> run : runs) {
        run.get(60, TimeUnit.SECONDS);
      }
      lockedRun.get(60, TimeUnit.SECONDS);
      gateA.close();
      gateB.close();
      storeA.close();
      storeB.close();
      for (int i = 0; i < n; i++) {
        assertThat(effects[i].get()).as("effects of live call k%d; B told %s", i, toldB).isOne();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static String slow(AtomicInteger effects) throws InterruptedException {
    effects.incrementAndGet();
    Thread.sleep(10_000);
    return "by-A";
  }

  private static List<HeldLease> claimThree(JdbcIdempotencyStore store) {
    String tenant = "t-" + UUID.randomUUID();
    List<HeldLease> held = new ArrayList<>();
    for (String key : List.of("a", "b", "c")) {
      ClaimId id = new ClaimId(tenant, "tool", key);
      LeaseToken token = LeaseToken.random();
      store.claim(new ClaimRequest(id, "h", token, LEASE, Duration.ofHours(1)));
      held.add(new HeldLease(id, token));
    }
    return held;
  }

  /** Locks the claim row of {@code id} in a transaction left open on {@code locker}. */
  private static void lock(Connection locker, ClaimId id) throws SQLException {
    locker.setAutoCommit(false);
    try (PreparedStatement ps =
        locker.prepareStatement(
            "SELECT 1 FROM "
                + TABLE
                + " WHERE tenant = ? AND tool = ? AND idem_key = ? FOR UPDATE")) {
      ClaimRows.bindKey(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("the claim row of %s, locked", id).isTrue();
      }
    }
  }

  private static long[] leases(Connection c, List<HeldLease> held) throws SQLException {
    long[] leases = new long[held.size()];
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lease_expires_at_ms FROM "
                + TABLE
                + " WHERE tenant = ? AND tool = ? AND idem_key = ?")) {
      for (int i = 0; i < leases.length; i++) {
        ClaimRows.bindKey(ps, 1, held.get(i).id());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          leases[i] = rs.getLong(1);
        }
      }
    }
    return leases;
  }

  /** The UPDATE statements the server ran on this connection's session so far. */
  private static long updates(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Com_update'")) {
      rs.next();
      return rs.getLong(2);
    }
  }

  private static void run(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
