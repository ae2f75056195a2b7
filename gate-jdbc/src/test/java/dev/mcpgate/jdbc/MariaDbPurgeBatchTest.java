package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.StoredResult;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB/MySQL purge deletes its batch in one transaction under READ COMMITTED. These cases
 * stop the purge's thread between its read and its DELETEs, and again before its commit, and check
 * what the open transaction holds: only the expired rows it deleted. Under REPEATABLE READ it would
 * also hold a row taken over since the read (a live lease, which then could not be completed or
 * renewed) and the gap of a row gone since (a fresh claim of a key in that gap would wait).
 */
class MariaDbPurgeBatchTest {
  private static final String TABLE = "mcpgate_purge_batch";

  private static HikariDataSource pool(TestDatabases.Target db) {
    return pool(db, 6);
  }

  private static HikariDataSource pool(TestDatabases.Target db, int size) {
    HikariConfig config = new HikariConfig();
    // a short lock wait: a statement that waits on the purge fails in 3 s instead of 50
    config.setJdbcUrl(
        db.url()
            + (db.url().contains("?") ? "&" : "?")
            + "sessionVariables=innodb_lock_wait_timeout=3");
    if (db.user() != null) {
      config.setUsername(db.user());
      config.setPassword(db.password());
    }
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  private static JdbcIdempotencyStore store(DataSource ds) {
    return JdbcIdempotencyStore.builder(ds).tableName(TABLE).createSchemaIfMissing(true).build();
  }

  private static void expiring(JdbcIdempotencyStore store, ClaimId id) throws Exception {
    store.claim(
        new ClaimRequest(
            id, "v1:a", LeaseToken.random(), Duration.ofMillis(100), Duration.ofMillis(100)));
    Thread.sleep(3); // distinct created_at_ms: the purge's order is the order of creation
  }

  private static void purgeAll(JdbcIdempotencyStore store) {
    while (store.purgeExpired(500) > 0) {
      // until no expired row is left
    }
  }

  private static ClaimRequest fresh(ClaimId id, LeaseToken token) {
    return new ClaimRequest(id, "v1:a", token, Duration.ofMinutes(1), Duration.ofHours(1));
  }

  @Test
  void thePurgesOpenTransactionHoldsOnlyTheRowsItDeleted() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    ClaimId deleted = new ClaimId(tenant, "t", "a");
    ClaimId gone = new ClaimId(tenant, "t", "g");
    ClaimId takenOver = new ClaimId(tenant, "t", "t");
    ClaimId inTheGap = new ClaimId(tenant, "t", "f"); // between a and g
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try (HikariDataSource ds = pool(TestDatabases.mariadb());
        JdbcIdempotencyStore store = store(ds)) {
      purgeAll(store); // rows other runs left expired would count in the purge's answer
      expiring(store, deleted);
      expiring(store, gone);
      expiring(store, takenOver);
      Thread.sleep(300);

      PausedPurge paused = new PausedPurge(ds);
      Future<Integer> purge;
      try (JdbcIdempotencyStore purging = store(paused.dataSource())) {
        purge = threads.submit(() -> purging.purgeExpired(500));
        assertThat(paused.beforeDeletes.await(10, TimeUnit.SECONDS))
            .as("the purge read its rows")
            .isTrue();
        // since the purge's read: one row taken over by a new call, one deleted (as another
        // replica's purge would)
        LeaseToken live = LeaseToken.random();
        assertThat(store.claim(fresh(takenOver, live))).isInstanceOf(ClaimAttempt.Acquired.class);
        try (Connection c = ds.getConnection();
            PreparedStatement delete =
                c.prepareStatement(
                    "DELETE FROM " + TABLE + " WHERE tenant = ? AND tool = ? AND idem_key = ?")) {
          ClaimRows.bindKey(delete, 1, gone);
          assertThat(delete.executeUpdate()).isEqualTo(1);
        }
        paused.deleteNow.countDown();
        assertThat(paused.beforeCommit.await(10, TimeUnit.SECONDS))
            .as("the purge ran its DELETEs")
            .isTrue();

        Future<Boolean> completion =
            threads.submit(
                () ->
                    store.complete(
                        takenOver,
                        live,
                        new StoredResult(StoredResult.Kind.VALUE, "{}".getBytes()),
                        Duration.ofHours(1)));
        Future<ClaimAttempt> claimInTheGap =
            threads.submit(() -> store.claim(fresh(inTheGap, LeaseToken.random())));
        assertThat(completion.get(10, TimeUnit.SECONDS))
            .as(
                "the live lease taken over since the purge's read completes while the purge is"
                    + " open")
            .isTrue();
        assertThat(claimInTheGap.get(10, TimeUnit.SECONDS))
            .as("a fresh claim in the gap of a row gone since the purge's read")
            .isInstanceOf(ClaimAttempt.Acquired.class);
      } finally {
        paused.commitNow.countDown();
      }
      assertThat(purge.get(10, TimeUnit.SECONDS))
          .as("the purge deleted the one row still expired with the token it read")
          .isEqualTo(1);
      assertThat(store.find(takenOver)).isPresent();
      assertThat(store.find(inTheGap)).isPresent();
      assertThat(store.find(gone)).isEmpty();
      assertThat(store.find(deleted)).isEmpty();
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * A server that logs statements refuses a write under READ COMMITTED (1665); the purge then
   * commits each row on its own, and still purges every expired row, and only those.
   */
  @Test
  void aServerThatLogsStatementsIsPurgedRowByRow() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    try (HikariDataSource ds = pool(TestDatabases.mariadbLoggingStatements(), 1);
        JdbcIdempotencyStore store = store(ds)) {
      purgeAll(store);
      for (int i = 0; i < 30; i++) {
        expiring(store, new ClaimId(tenant, "t", "old-" + i));
      }
      ClaimId live = new ClaimId(tenant, "t", "live");
      store.claim(fresh(live, LeaseToken.random()));
      Thread.sleep(300);
      assertThat(store.purgeExpired(20)).isEqualTo(20);
      assertThat(store.purgeExpired(20))
          .as("a second purge, row by row from the start")
          .isEqualTo(10);
      assertThat(store.find(live)).isPresent();
      assertThat(store.find(new ClaimId(tenant, "t", "old-29"))).isEmpty();
      assertSessionAsConfigured(ds);
    }
  }

  /** The purge's one connection goes back to the pool as it came: lock wait, auto-commit. */
  @Test
  void thePurgeGivesItsConnectionBackAsItCame() throws Exception {
    String tenant = "batch-" + UUID.randomUUID();
    try (HikariDataSource ds = pool(TestDatabases.mariadb(), 1);
        JdbcIdempotencyStore store = store(ds)) {
      for (int i = 0; i < 5; i++) {
        expiring(store, new ClaimId(tenant, "t", "old-" + i));
      }
      Thread.sleep(300);
      assertThat(store.purgeExpired(500)).isGreaterThanOrEqualTo(5);
      assertSessionAsConfigured(ds);
    }
  }

  private static void assertSessionAsConfigured(HikariDataSource ds) throws Exception {
    try (Connection c = ds.getConnection()) {
      assertThat(c.getAutoCommit()).as("auto-commit").isTrue();
      assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.innodb_lock_wait_timeout"))
          .as("the session's lock wait, as the pool's URL set it")
          .isEqualTo("3");
      assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.tx_isolation"))
          .isEqualTo("REPEATABLE-READ");
    }
  }

  /**
   * A data source (for the purge alone) whose connections stop before the purge's DELETE until
   * {@link #deleteNow}, and after it before a commit until {@link #commitNow}.
   */
  private static final class PausedPurge {
    final CountDownLatch beforeDeletes = new CountDownLatch(1);
    final CountDownLatch deleteNow = new CountDownLatch(1);
    final CountDownLatch beforeCommit = new CountDownLatch(1);
    final CountDownLatch commitNow = new CountDownLatch(1);
    private final DataSource target;
    private volatile boolean deleting;

    PausedPurge(DataSource target) {
      this.target = target;
    }

    DataSource dataSource() {
      return (DataSource)
          Proxy.newProxyInstance(
              DataSource.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                Object result = invoke(target, method, args);
                return result instanceof Connection c ? connection(c) : result;
              });
    }

    private Connection connection(Connection c) {
      InvocationHandler handler =
          (proxy, method, args) -> {
            if (method.getName().equals("prepareStatement")
                && ((String) args[0]).startsWith("DELETE")) {
              beforeDeletes.countDown();
              assertThat(deleteNow.await(20, TimeUnit.SECONDS)).isTrue();
              deleting = true;
            } else if (deleting && method.getName().equals("commit")) {
              beforeCommit.countDown();
              assertThat(commitNow.await(20, TimeUnit.SECONDS)).isTrue();
            }
            return invoke(c, method, args);
          };
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
        throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }
}
