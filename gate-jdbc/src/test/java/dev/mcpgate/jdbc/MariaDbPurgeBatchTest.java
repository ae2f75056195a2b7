package dev.mcpgate.jdbc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB/MySQL purge deletes the expired rows it read in auto-committed DELETEs (on MariaDB up
 * to {@link MySqlFamilyPurge#ROWS_PER_DELETE} rows each, named by primary key; on MySQL one row
 * each), none waiting on a held row: no lock it takes outlives its statement, whatever the purge's
 * thread does between two of them, a statement locks only the rows it names, and a held row costs
 * only its own DELETE. (A batch in one transaction was tried twice: its locks lasted from its first
 * DELETE to its COMMIT, across the client's writes.)
 */
class MariaDbPurgeBatchTest {
  private static final String TABLE = "mcpgate_purge_batch";

  private static HikariDataSource pool(String urlOptions, int size) {
    // a short lock wait: a statement that waits on the purge fails in 3 s instead of 50
    return MariaDbPurgeFixtures.pool(3, size, urlOptions);
  }

  private static JdbcIdempotencyStore store(DataSource ds) {
    return MariaDbPurgeFixtures.store(ds, TABLE);
  }

  private static ClaimRequest fresh(ClaimId id) {
    return new ClaimRequest(
        id, "v1:a", LeaseToken.random(), Duration.ofMinutes(1), Duration.ofHours(1));
  }

  private static Connection hold(DataSource ds, ClaimId id) throws Exception {
    return MariaDbPurgeFixtures.hold(ds, TABLE, id);
  }

  /**
   * The purge's thread stops after its first DELETE (a pause, a starved CPU): the keys it deleted
   * are free at once, and a single-commit call that will not wait takes over an expired key of the
   * next DELETE, which the purge then leaves alone (it holds another token now).
   */
  @Test
  void noLockOutlivesAPurgeStatement() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    ClaimId plain = new ClaimId(tenant, "t", "plain-0");
    ToolCall singleCommit = ToolCall.of(tenant, "refund_order", "single", Map.of("order", 1));
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (HikariDataSource ds = pool("", 6);
        JdbcIdempotencyStore store = store(ds);
        IdempotencyGate setup =
            IdempotencyGate.builder(store)
                .policy(
                    GatePolicy.builder()
                        .lease(Duration.ofMillis(100))
                        .retention(Duration.ofMillis(100))
                        .build())
                .build();
        IdempotencyGate gate =
            IdempotencyGate.builder(store)
                .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
                .build()) {
      MariaDbPurgeFixtures.purgeAll(store);
      // the older rows fill the first DELETE
      for (int i = 0; i < MySqlFamilyPurge.ROWS_PER_DELETE; i++) {
        MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "t", "plain-" + i));
      }
      MariaDbPurgeFixtures.runEach(setup, singleCommit);
      Thread.sleep(300); // the retentions ran out: the keys are free

      WatchedDeletes stopped = new WatchedDeletes(ds, true);
      Future<Integer> purge;
      Object claimed;
      GateResult<String> called;
      try (JdbcIdempotencyStore purging = store(stopped.dataSource())) {
        purge = threads.submit(() -> purging.purgeExpired(500));
        assertThat(stopped.afterDelete.await(10, TimeUnit.SECONDS))
            .as("the purge's first DELETE ran")
            .isTrue();
        try {
          claimed = store.claim(fresh(plain));
        } catch (RuntimeException e) {
          claimed = e;
        }
        called =
            gate.executeSingleCommit(
                singleCommit, ResultMapper.utf8(), store.singleCommit(), (c, ctx) -> "new");
      } finally {
        stopped.goOn.countDown();
      }
      assertThat(purge.get(20, TimeUnit.SECONDS))
          .as("the purge deleted the first DELETE's rows, not the one taken over since its read")
          .isEqualTo(MySqlFamilyPurge.ROWS_PER_DELETE);
      assertThat(claimed)
          .as("a claim of an expired key the stopped purge deleted")
          .isInstanceOf(ClaimAttempt.Acquired.class);
      assertThat(called)
          .as("a single-commit call of an expired key, while the purge is stopped")
          .isInstanceOf(GateResult.Executed.class);
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * On MariaDB the rows go up to {@link MySqlFamilyPurge#ROWS_PER_DELETE} to a DELETE, one commit
   * for all of them, not one a row; a statement names a power of two rows, so that a connection
   * prepares few texts (the server counts prepared statements against a global limit).
   */
  @Test
  void aDeleteTakesManyRowsAtOnce() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    int rows = 2 * MySqlFamilyPurge.ROWS_PER_DELETE + 7;
    try (HikariDataSource ds = pool("", 2);
        JdbcIdempotencyStore store = store(ds)) {
      MariaDbPurgeFixtures.purgeAll(store);
      for (int i = 0; i < rows; i++) {
        store.claim(
            new ClaimRequest(
                new ClaimId(tenant, "t", "k-" + i),
                "v1:a",
                LeaseToken.random(),
                Duration.ofMillis(100),
                Duration.ofMillis(100)));
      }
      Thread.sleep(300);
      WatchedDeletes watched = new WatchedDeletes(ds, false);
      try (JdbcIdempotencyStore purging = store(watched.dataSource())) {
        assertThat(purging.purgeExpired(500)).isEqualTo(rows);
      }
      // 64, 64, then the 7 left as 4, 2 and 1: a power of two a statement
      assertThat(watched.deletes.get()).as("DELETE statements for %d rows", rows).isEqualTo(5);
      assertThat(watched.texts).as("statement texts prepared").hasSize(4);
      assertThat(store.find(new ClaimId(tenant, "t", "k-0"))).isEmpty();
    }
  }

  /**
   * A DELETE of many rows locks the rows it names and, for a row no longer there, the gap it was
   * in, as a DELETE a row would: not a live row it does not name, nor the gaps where new keys go.
   * Run here inside a transaction to look at its locks. Without {@code FORCE INDEX (PRIMARY)} the
   * optimizer scans this small table whole, and the statement locks every row and every gap.
   */
  @Test
  void aDeleteOfManyRowsLocksOnlyTheRowsItNames() throws Exception {
    String table = "mcpgate_purge_points";
    String tenant = "points-" + UUID.randomUUID();
    try (HikariDataSource ds = pool("", 3);
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, table)) {
      MariaDbPurgeFixtures.purgeAll(store); // makes the table
      try (Connection c = ds.getConnection()) {
        SqlDialect.run(c, "DELETE FROM " + table); // small, as the optimizer would scan it whole
      }
      ClaimId a = new ClaimId(tenant, "t", "a");
      ClaimId b = new ClaimId(tenant, "t", "b");
      ClaimId c = new ClaimId(tenant, "t", "c");
      ClaimId e = new ClaimId(tenant, "t", "e");
      Map<ClaimId, LeaseToken> tokens = new java.util.HashMap<>();
      for (ClaimId id : new ClaimId[] {a, b, c, e}) {
        LeaseToken token = LeaseToken.random();
        boolean live = id.equals(b) || id.equals(e);
        Duration lasts = live ? Duration.ofHours(1) : Duration.ofMillis(100);
        store.claim(new ClaimRequest(id, "v1:a", token, lasts, lasts));
        tokens.put(id, token);
      }
      Thread.sleep(300);
      MySqlFamilyPurge statements = new MySqlFamilyPurge(table, MySqlFamilySql.NOW_MS, true);
      try (Connection purge = ds.getConnection();
          Connection probe = ds.getConnection()) {
        purge.setAutoCommit(false);
        int deleted;
        // a and c expired, b live (taken over since a purge's read, say)
        try (PreparedStatement ps = purge.prepareStatement(statements.groupPurgeSql(3))) {
          int i = 1;
          for (ClaimId id : new ClaimId[] {a, b, c}) {
            i = ClaimRows.bindKey(ps, i, id);
            ps.setString(i++, tokens.get(id).value());
          }
          deleted = ps.executeUpdate();
        }
        try {
          assertThat(deleted).as("the expired rows named").isEqualTo(2);
          SqlDialect.run(probe, "SET SESSION innodb_lock_wait_timeout = 0");
          assertThat(lockable(probe, table, e)).as("a live row not named").isTrue();
          for (String fresh : new String[] {"aa", "bb", "d", "f"}) {
            assertThat(insertable(probe, table, new ClaimId(tenant, "t", fresh)))
                .as("a new key's insert next to the DELETE's rows: " + fresh)
                .isTrue();
          }
        } finally {
          purge.rollback();
        }
      }
    }
  }

  /**
   * The purge's DELETEs run under READ COMMITTED: one that names a row taken over since the purge's
   * read (a live lease now, whose renewals must not wait) lets go of it at once. Run here inside a
   * transaction to look at the locks it keeps; under REPEATABLE READ the row stays locked until the
   * statement ends.
   */
  @Test
  void aDeleteLetsGoOfANamedRowTakenOverSinceTheRead() throws Exception {
    String table = "mcpgate_purge_points";
    String tenant = "points-" + UUID.randomUUID();
    try (HikariDataSource ds = pool("", 3);
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, table)) {
      MariaDbPurgeFixtures.purgeAll(store);
      ClaimId a = new ClaimId(tenant, "t", "a");
      ClaimId b = new ClaimId(tenant, "t", "b");
      ClaimId c = new ClaimId(tenant, "t", "c");
      for (ClaimId id : new ClaimId[] {a, b, c}) {
        MariaDbPurgeFixtures.expiring(store, id);
      }
      Thread.sleep(300);
      MySqlFamilyPurge statements = new MySqlFamilyPurge(table, MySqlFamilySql.NOW_MS, true);
      try (Connection purge = ds.getConnection();
          Connection probe = ds.getConnection()) {
        List<MySqlFamilyPurge.ExpiredRow> read =
            statements.expired(purge, 500).stream()
                .filter(row -> new String(row.tenant(), UTF_8).equals(tenant))
                .toList();
        assertThat(read).hasSize(3);
        store.claim(fresh(b)); // b taken over: a new token, a live lease
        // the transaction begins with the purge's first DELETE, under the isolation it sets
        purge.setAutoCommit(false);
        try {
          assertThat(statements.delete(purge, read)).as("the rows still expired").isEqualTo(2);
          SqlDialect.run(probe, "SET SESSION innodb_lock_wait_timeout = 0");
          assertThat(lockable(probe, table, b)).as("the row taken over, named").isTrue();
        } finally {
          purge.rollback();
          purge.setAutoCommit(true);
        }
      }
    }
  }

  /**
   * The purge puts back the session's isolation it set, on a connection of no pool (a pool that
   * tracks what JDBC changed, as HikariCP does, would put it back itself).
   */
  @Test
  void thePurgePutsTheIsolationBackOnAConnectionOfNoPool() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    try (HikariDataSource ds = pool("", 1);
        JdbcIdempotencyStore store = store(ds)) {
      MariaDbPurgeFixtures.purgeAll(store);
      MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "t", "k"));
      Thread.sleep(300);
    }
    TestDatabases.Target db = TestDatabases.mariadb();
    MySqlFamilyPurge statements = new MySqlFamilyPurge(TABLE, MySqlFamilySql.NOW_MS, true);
    try (Connection c = java.sql.DriverManager.getConnection(db.url(), db.user(), db.password())) {
      assertThat(statements.delete(c, statements.expired(c, 500))).isPositive();
      assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.tx_isolation"))
          .isEqualTo("REPEATABLE-READ");
    }
  }

  /**
   * A server whose binary log logs statements refuses a write under READ COMMITTED (error 1665):
   * there the purge deletes a row a statement, under the session's isolation.
   */
  @Test
  void aServerLoggingStatementsIsPurgedARowAStatement() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    try (HikariDataSource ds = pool("", 1);
        JdbcIdempotencyStore store = store(ds)) {
      MariaDbPurgeFixtures.purgeAll(store);
      for (int i = 0; i < 5; i++) {
        MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "t", "k-" + i));
      }
      Thread.sleep(300);
      try (Connection c = ds.getConnection()) {
        SqlDialect.run(c, "SET SESSION binlog_format = 'STATEMENT'"); // the pool's one connection
      }
      WatchedDeletes watched = new WatchedDeletes(ds, false);
      try (JdbcIdempotencyStore purging = store(watched.dataSource())) {
        assertThat(purging.purgeExpired(500)).isEqualTo(5);
      } finally {
        try (Connection c = ds.getConnection()) {
          SqlDialect.run(c, "SET SESSION binlog_format = DEFAULT");
        }
      }
      assertThat(watched.deletes.get()).as("DELETE statements for 5 rows").isEqualTo(5);
    }
  }

  private static boolean lockable(Connection c, String table, ClaimId id) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT 1 FROM "
                + table
                + " WHERE tenant = ? AND tool = ? AND idem_key = ? FOR UPDATE")) {
      ClaimRows.bindKey(ps, 1, id);
      ps.executeQuery().close();
      return true;
    } catch (java.sql.SQLException locked) {
      if (!SqlDialect.isTimeout(locked)) {
        throw locked;
      }
      return false;
    }
  }

  private static boolean insertable(Connection c, String table, ClaimId id) throws Exception {
    c.setAutoCommit(false);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + table
                + " (tenant, tool, idem_key, args_hash, state, lease_token, attempt,"
                + " created_at_ms, lease_expires_at_ms, expires_at_ms)"
                + " VALUES (?, ?, ?, 'v1:a', 'IN_PROGRESS', 'x', 1, 0, 0, 0)")) {
      ClaimRows.bindKey(ps, 1, id);
      ps.executeUpdate();
      return true;
    } catch (java.sql.SQLException locked) {
      if (!SqlDialect.isTimeout(locked)) {
        throw locked;
      }
      return false;
    } finally {
      c.rollback();
      c.setAutoCommit(true);
    }
  }

  /**
   * A held row fails only its own DELETE: the rows before and after it are deleted and counted,
   * whatever the driver does with prepared statements and batches (in a JDBC batch, server-side
   * prepared statements report every statement as failed when one failed; a bulk batch, or one with
   * {@code continueBatchOnError=false}, stops at the first failure).
   */
  @Test
  void aHeldRowCostsOnlyItsOwnDeleteWhateverTheDriversBatchSettings() throws Exception {
    for (String options :
        new String[] {
          "",
          "&useServerPrepStmts=true",
          "&useBulkStmts=true",
          "&continueBatchOnError=false&disablePipeline=true"
        }) {
      String tenant = "batch-" + UUID.randomUUID();
      ClaimId a = new ClaimId(tenant, "t", "a");
      ClaimId held = new ClaimId(tenant, "t", "h");
      ClaimId b = new ClaimId(tenant, "t", "b");
      try (HikariDataSource ds = pool(options, 4);
          JdbcIdempotencyStore store = store(ds)) {
        MariaDbPurgeFixtures.purgeAll(store);
        MariaDbPurgeFixtures.expiring(store, held); // the oldest: first in the purge's batch
        MariaDbPurgeFixtures.expiring(store, a);
        MariaDbPurgeFixtures.expiring(store, b);
        Thread.sleep(300);
        int purged;
        try (Connection holder = hold(ds, held)) {
          purged = store.purgeExpired(500);
          holder.rollback();
        }
        assertThat(purged).as("the rows deleted beside a held one, " + options).isEqualTo(2);
        assertThat(store.find(a)).isEmpty();
        assertThat(store.find(b)).isEmpty();
        assertThat(store.find(held)).as("the held row, left for a later purge").isPresent();
      }
    }
  }

  /**
   * A held row is not waited on, even with the server's default lock wait (50 s): a purge that
   * waited would not be done in the 10 s given. The same with MySQL's dialect, whose least lock
   * wait is 1 s (here run on MariaDB).
   */
  @Test
  void aHeldRowIsNotWaitedOn() throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (HikariDataSource ds = MariaDbPurgeFixtures.pool(50, 1, "");
        HikariDataSource holders = pool("", 1);
        JdbcIdempotencyStore store = store(ds)) {
      for (boolean mariadb : new boolean[] {true, false}) {
        String tenant = "batch-" + UUID.randomUUID();
        ClaimId a = new ClaimId(tenant, "t", "a");
        ClaimId held = new ClaimId(tenant, "t", "h");
        ClaimId b = new ClaimId(tenant, "t", "b");
        MariaDbPurgeFixtures.purgeAll(store);
        MariaDbPurgeFixtures.expiring(store, a);
        MariaDbPurgeFixtures.expiring(store, held);
        MariaDbPurgeFixtures.expiring(store, b);
        Thread.sleep(300);
        MySqlFamilySql dialect = new MySqlFamilySql(TABLE, true, mariadb);
        int purged;
        try (Connection holder = hold(holders, held);
            Connection c = ds.getConnection()) {
          purged = thread.submit(() -> dialect.purge(c, 500)).get(10, TimeUnit.SECONDS);
          holder.rollback();
        }
        assertThat(purged).as("mariadb " + mariadb).isEqualTo(2);
        assertThat(store.find(a)).isEmpty();
        assertThat(store.find(b)).isEmpty();
        assertThat(store.find(held)).isPresent();
        try (Connection c = ds.getConnection()) {
          assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.innodb_lock_wait_timeout"))
              .as("the session's lock wait, put back")
              .isEqualTo("50");
        }
      }
    } finally {
      thread.shutdownNow();
    }
  }

  /** The purge's one connection goes back to the pool as it came, a held row met or not. */
  @Test
  void thePurgeGivesItsConnectionBackAsItCame() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    ClaimId held = new ClaimId(tenant, "t", "h");
    try (HikariDataSource ds = pool("", 1);
        HikariDataSource holders = pool("", 1);
        JdbcIdempotencyStore store = store(ds)) {
      MariaDbPurgeFixtures.purgeAll(store);
      for (int i = 0; i < 5; i++) {
        MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "t", "old-" + i));
      }
      MariaDbPurgeFixtures.expiring(store, held);
      Thread.sleep(300);
      try (Connection holder = hold(holders, held)) {
        assertThat(store.purgeExpired(500)).isEqualTo(5);
        holder.rollback();
      }
      assertSessionAsConfigured(ds);
    }
  }

  private static void assertSessionAsConfigured(HikariDataSource ds) throws Exception {
    try (Connection c = ds.getConnection()) {
      assertThat(c.getAutoCommit()).as("auto-commit").isTrue();
      assertThat(SqlDialect.queryOne(c, "SELECT @@in_transaction"))
          .as("a transaction left open")
          .isEqualTo("0");
      assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.innodb_lock_wait_timeout"))
          .as("the session's lock wait, as the pool's URL set it")
          .isEqualTo("3");
      assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.tx_isolation"))
          .as("the session's isolation, as the server set it")
          .isEqualTo("REPEATABLE-READ");
    }
  }

  /**
   * A data source (for the purge alone) that counts its DELETE statements and, when asked, stops
   * after the first until {@link #goOn}.
   */
  private static final class WatchedDeletes {
    final CountDownLatch afterDelete = new CountDownLatch(1);
    final CountDownLatch goOn = new CountDownLatch(1);
    final AtomicInteger deletes = new AtomicInteger();
    final Set<String> texts = ConcurrentHashMap.newKeySet();
    private final DataSource target;
    private final boolean stop;

    WatchedDeletes(DataSource target, boolean stop) {
      this.target = target;
      this.stop = stop;
    }

    DataSource dataSource() {
      return proxy(DataSource.class, target, false);
    }

    private <T> T proxy(Class<T> type, Object delegate, boolean deleting) {
      InvocationHandler handler =
          (p, method, args) -> {
            Object result = invoke(delegate, method, args);
            if (deleting && method.getName().equals("executeUpdate")) {
              deletes.incrementAndGet();
              afterDelete.countDown();
              if (stop) {
                assertThat(goOn.await(20, TimeUnit.SECONDS)).isTrue();
              }
            }
            if (method.getReturnType() == Connection.class) {
              return proxy(Connection.class, result, false);
            }
            if (method.getName().equals("prepareStatement")
                && ((String) args[0]).contains("DELETE ")) {
              texts.add((String) args[0]);
              return proxy(PreparedStatement.class, result, true);
            }
            return result;
          };
      return type.cast(
          Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }
}
