package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of the renewal path (branch review): each test fails on the reviewed HEAD and
 * names the promise it breaks.
 */
class RenewalReviewTest {
  private static final Duration LONG = Duration.ofMinutes(1);
  private static final Duration WITHIN = Duration.ofMillis(1250); // the default deadline

  private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      try {
        cleanup.get(i).close();
      } catch (Exception e) {
        // best effort
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  private HikariDataSource hikari(String url, String schema) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    config.setConnectionTimeout(10_000);
    if (schema != null) {
      config.setSchema(schema);
    }
    HikariDataSource pool = new HikariDataSource(config);
    cleanup.add(pool);
    return pool;
  }

  private JdbcIdempotencyStore store(DataSource data, String table) {
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(data).tableName(table).createSchemaIfMissing(true).build();
    cleanup.add(store);
    return store;
  }

  private void sql(String url, String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  private static HeldLease claim(JdbcIdempotencyStore store, ClaimId id, Duration lease) {
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, lease, Duration.ofMinutes(10))))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    return new HeldLease(id, token);
  }

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  /** The store's transactions, with a begin() that waits for a latch (a paused holder). */
  private static final class PausedBegin implements TransactionScope<Connection> {
    final TransactionScope<Connection> delegate;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch resume = new CountDownLatch(1);

    PausedBegin(TransactionScope<Connection> delegate) {
      this.delegate = delegate;
    }

    @Override
    public Connection begin() {
      entered.countDown();
      try {
        resume.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return delegate.begin();
    }

    @Override
    public boolean complete(
        Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      return delegate.complete(c, id, token, result, retention);
    }

    @Override
    public boolean release(Connection c, ClaimId id, LeaseToken token) {
      return delegate.release(c, id, token);
    }

    @Override
    public void commit(Connection c) {
      delegate.commit(c);
    }

    @Override
    public void rollback(Connection c) {
      delegate.rollback(c);
    }

    @Override
    public void close(Connection c) {
      delegate.close(c);
    }
  }

  // ------------------------------------------------------------------ MariaDB: bulk batches

  /**
   * MariaDB Connector/J with {@code useBulkStmts=true} (the driver's default in 3.0 and 3.1, and
   * the setting MariaDB recommends for fast batches) answers a batch of two or more UPDATEs with
   * {@code SUCCESS_NO_INFO} for every statement, matched or not. {@code extendEach} takes that as
   * "extended": a lease that another attempt took over is reported renewed.
   */
  @Test
  void mariaDbBulkBatchDoesNotReportATakenOverLeaseAsExtended() throws Exception {
    String url = TestDatabases.mariadb().url() + "&useBulkStmts=true";
    String table = "rv_bulk_" + suffix;
    cleanup.add(() -> sql(TestDatabases.mariadb().url(), "DROP TABLE IF EXISTS " + table));
    JdbcIdempotencyStore store = store(hikari(url, null), table);
    ClaimId id = new ClaimId("acme", "refund_order", "bulk-" + suffix);
    HeldLease first = claim(store, id, Duration.ofMillis(200));
    HeldLease live = claim(store, new ClaimId("acme", "refund_order", "live-" + suffix), LONG);
    Thread.sleep(400);
    HeldLease takeover = claim(store, id, LONG); // the first lease ran out: taken over

    ExtendedLeases answer = store.extendLeases(List.of(first, live), LONG, WITHIN);

    assertThat(answer.isLost(first.token()))
        .as("the first attempt's lease was taken over by %s: %s", takeover.token(), answer)
        .isTrue();
  }

  /**
   * The same, end to end. Replica A is paused (its renewal scheduler and two holders, each between
   * its claim and its action) past the lease; replica B takes key 1 over and runs its action. When
   * A resumes, its overdue renewal of both leases comes back "extended" from the bulk batch, so the
   * check before key 1's action finds the lease confirmed by the clock and runs the action a second
   * time. The check exists for exactly this pause.
   */
  @Test
  void mariaDbBulkBatchLetsAPausedHolderRunAnActionAnotherReplicaRan() throws Exception {
    String url = TestDatabases.mariadb().url() + "&useBulkStmts=true";
    String table = "rv_bulk_gate_" + suffix;
    cleanup.add(() -> sql(TestDatabases.mariadb().url(), "DROP TABLE IF EXISTS " + table));
    JdbcIdempotencyStore storeA = store(hikari(url, null), table);
    JdbcIdempotencyStore storeB = store(hikari(url, null), table);
    GatePolicy policy =
        GatePolicy.builder()
            .lease(Duration.ofSeconds(1))
            .leaseRenewal(Duration.ofMillis(250))
            .inFlightWait(Duration.ZERO)
            .build();
    java.util.concurrent.ScheduledExecutorService paused =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    CountDownLatch pauseOver = new CountDownLatch(1);
    paused.execute(
        () -> {
          try {
            pauseOver.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    cleanup.add(paused::shutdownNow);
    cleanup.add(pauseOver::countDown);
    IdempotencyGate a = IdempotencyGate.builder(storeA).policy(policy).scheduler(paused).build();
    IdempotencyGate b = IdempotencyGate.builder(storeB).policy(policy).build();
    cleanup.add(a);
    cleanup.add(b);
    AtomicInteger effects = new AtomicInteger();
    AtomicReference<Object> aTold = new AtomicReference<>();
    String key = "paused-" + suffix;

    PausedBegin scope1 = new PausedBegin(storeA.transactions());
    PausedBegin scope2 = new PausedBegin(storeA.transactions());
    cleanup.add(scope1.resume::countDown);
    cleanup.add(scope2.resume::countDown);
    Thread holder1 = holder(a, key, scope1, effects, aTold);
    Thread holder2 =
        holder(a, "other-" + suffix, scope2, new AtomicInteger(), new AtomicReference<>());
    assertThat(scope1.entered.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(scope2.entered.await(10, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(1_400); // A's leases have run out
    GateResult<String> bTold =
        b.execute(
            call(key),
            ResultMapper.utf8(),
            ctx -> {
              effects.incrementAndGet();
              return "by-b";
            });
    assertThat(bTold).isInstanceOf(GateResult.Executed.class);
    pauseOver.countDown(); // A resumes: its overdue renewal goes out first
    Thread.sleep(500);
    scope1.resume.countDown();
    scope2.resume.countDown();
    holder1.join(10_000);
    holder2.join(10_000);

    assertThat(effects).as("the action ran at most once (A was told: %s)", aTold.get()).hasValue(1);
  }

  private static Thread holder(
      IdempotencyGate gate,
      String key,
      PausedBegin scope,
      AtomicInteger effects,
      AtomicReference<Object> told) {
    Thread holder =
        new Thread(
            () -> {
              try {
                told.set(
                    gate.execute(
                        call(key),
                        ResultMapper.utf8(),
                        scope,
                        (Connection c, ClaimContext ctx) -> {
                          effects.incrementAndGet();
                          return "by-a";
                        }));
              } catch (RuntimeException e) {
                told.set(e);
              }
            });
    holder.start();
    return holder;
  }

  // ------------------------------------------------------------------ MariaDB: lock waits

  /**
   * Rows of other running attempts locked by another transaction: each costs the batch a whole
   * {@code innodb_lock_wait_timeout} (1 s), one after the other (the network timeout is per read
   * and never fires; MariaDB's query timeout is per statement), so the call takes a second per
   * locked row, past the deadline the SPI promises ("every wait it makes ... a row lock ... is
   * bounded by within"). With five rows locked it answers after the whole default lease (5 s): the
   * late "extended" of the unlocked lease confirms it only until its send time plus the lease, that
   * is until it arrived, so the others' leases lapse while the locks last, and every retry sent at
   * the deadline holds another connection for as long. The design's table says "nothing for the
   * others".
   */
  @Test
  void mariaDbLockedRowsDoNotHoldBackTheOtherLeases() throws Exception {
    String url = TestDatabases.mariadb().url();
    String table = "rv_locked_" + suffix;
    cleanup.add(() -> sql(url, "DROP TABLE IF EXISTS " + table));
    JdbcIdempotencyStore store = store(hikari(url, null), table);
    List<HeldLease> held = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      held.add(claim(store, new ClaimId("acme", "refund_order", "locked-" + i), LONG));
    }
    Connection locker = DriverManager.getConnection(url);
    cleanup.add(locker);
    locker.setAutoCommit(false);
    cleanup.add(locker::rollback);
    for (int i = 0; i < 5; i++) {
      try (PreparedStatement ps =
          locker.prepareStatement(
              "SELECT * FROM "
                  + table
                  + " WHERE tenant = ? AND tool = ? AND idem_key = ? FOR UPDATE")) {
        ClaimRows.bindKey(ps, 1, held.get(i).id());
        ps.executeQuery().close();
      }
    }

    long started = System.nanoTime();
    ExtendedLeases answer;
    try {
      answer = store.extendLeases(held, Duration.ofSeconds(5), WITHIN); // the defaults
    } catch (RuntimeException e) {
      answer = new ExtendedLeases(java.util.Set.of(), java.util.Set.of());
    }
    long tookMs = (System.nanoTime() - started) / 1_000_000;

    assertThat(answer.extended())
        .as("the unlocked lease is extended (took %d ms): %s", tookMs, answer)
        .contains(held.get(5).token());
    assertThat(tookMs)
        .as("answered within the deadline, not after the lease (%s)", answer)
        .isLessThan(WITHIN.toMillis() + 100);
  }

  // ------------------------------------------------------------------ HikariCP schema

  /**
   * A HikariCP pool with {@code setSchema}: the pool's connections resolve the table in that
   * schema, the renewal connection opened from the driver does not (it takes the URL and the
   * credentials, not the schema). With a table of the same name on the default search path (another
   * deployment's, an old one), every renewal updates nothing there and every running lease is
   * reported lost.
   */
  @Test
  void postgresRenewalsOfAPoolWithASchemaRenewThatSchemasRows() throws Exception {
    String url = TestDatabases.postgres().url();
    String schema = "rv_schema_" + suffix;
    String table = "rv_claims_" + suffix;
    sql(url, "CREATE SCHEMA " + schema);
    cleanup.add(() -> sql(url, "DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
    cleanup.add(() -> sql(url, "DROP TABLE IF EXISTS public." + table));
    store(hikari(url, null), table).verify(); // the same name in public

    JdbcIdempotencyStore store = store(hikari(url, schema), table);
    HeldLease held = claim(store, new ClaimId("acme", "refund_order", "schema-1"), LONG);
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + "." + table)) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).as("the claim is in the pool's schema").isEqualTo(1);
    }

    ExtendedLeases answer = store.extendLeases(List.of(held), LONG, WITHIN);

    assertThat(answer.extended()).as("%s", answer).containsExactly(held.token());
  }

  /**
   * A pool the store cannot see past (Agroal in a Quarkus application; here a proxy that hides a
   * HikariCP pool), given {@code renewalConnectionsFromDriver}: the renewal goes straight to the
   * driver and takes no connection from the pool, which the tools may hold in full.
   */
  @Test
  void postgresRenewalsFromTheDriverTakeNothingFromAPoolTheStoreCannotSeePast() throws Exception {
    TestDatabases.Target pg = TestDatabases.postgres();
    HikariDataSource pool = hikari(pg.url(), null);
    java.util.concurrent.atomic.AtomicInteger borrowed =
        new java.util.concurrent.atomic.AtomicInteger();
    DataSource opaque =
        (DataSource)
            java.lang.reflect.Proxy.newProxyInstance(
                DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getConnection")) {
                    borrowed.incrementAndGet();
                  }
                  return method.invoke(pool, args);
                });
    java.util.Properties credentials = new java.util.Properties();
    if (pg.user() != null) {
      credentials.setProperty("user", pg.user());
    }
    if (pg.password() != null) {
      credentials.setProperty("password", pg.password());
    }
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(opaque)
            .tableName("rv_claims_" + suffix)
            .createSchemaIfMissing(true)
            .renewalConnectionsFromDriver(pg.url(), credentials)
            .build();
    cleanup.add(store);
    cleanup.add(() -> sql(pg, "DROP TABLE IF EXISTS rv_claims_" + suffix));
    HeldLease held = claim(store, new ClaimId("acme", "refund_order", "driver-1"), LONG);
    int before = borrowed.get();

    ExtendedLeases answer = store.extendLeases(List.of(held), LONG, WITHIN);

    assertThat(answer.extended()).as("%s", answer).containsExactly(held.token());
    assertThat(borrowed.get()).as("connections taken from the pool").isEqualTo(before);
  }

  private void sql(TestDatabases.Target pg, String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  /**
   * The same pool, without a table of that name elsewhere: every renewal fails (no such table), no
   * lease is ever renewed, and a live action longer than the lease is taken over and run again by
   * the other replica.
   */
  @Test
  void postgresAPoolWithASchemaKeepsALiveActionsLease() throws Exception {
    String url = TestDatabases.postgres().url();
    String schema = "rv_schema_gate_" + suffix;
    String table = "rv_claims_gate_" + suffix;
    sql(url, "CREATE SCHEMA " + schema);
    cleanup.add(() -> sql(url, "DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
    HikariDataSource pool = hikari(url, schema);
    JdbcIdempotencyStore storeA = store(pool, table);
    JdbcIdempotencyStore storeB = store(pool, table);
    GatePolicy policy =
        GatePolicy.builder()
            .lease(Duration.ofSeconds(1))
            .leaseRenewal(Duration.ofMillis(250))
            .inFlightWait(Duration.ZERO)
            .build();
    IdempotencyGate a = IdempotencyGate.builder(storeA).policy(policy).build();
    IdempotencyGate b = IdempotencyGate.builder(storeB).policy(policy).build();
    cleanup.add(a);
    cleanup.add(b);
    AtomicInteger effects = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    String key = "live-" + suffix;

    Thread holder =
        new Thread(
            () ->
                a.execute(
                    call(key),
                    ResultMapper.utf8(),
                    ctx -> {
                      effects.incrementAndGet();
                      started.countDown();
                      Thread.sleep(2_500);
                      return "by-a";
                    }));
    holder.start();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    while (holder.isAlive()) {
      b.execute(
          call(key),
          ResultMapper.utf8(),
          ctx -> {
            effects.incrementAndGet();
            return "by-b";
          });
      Thread.sleep(50);
    }

    assertThat(effects).as("the live action was never taken over").hasValue(1);
  }

  // ------------------------------------------------------------------ a pool the store cannot see

  /**
   * A pool other than HikariCP (DBCP, Tomcat's, Agroal, UCP: the store's documented fallback) lends
   * the renewal connection; the store sets {@code innodb_lock_wait_timeout = 1} and a network
   * timeout of the deadline on it, and hands it back to the tools' pool that way. A tool's
   * transaction that waits more than a second for a row lock, or a query that runs longer than 1.25
   * s, then fails on that connection.
   */
  @Test
  void mariaDbAPooledRenewalConnectionGoesBackToTheToolsAsItCame() throws Exception {
    String url = TestDatabases.mariadb().url();
    String table = "rv_pool_" + suffix;
    cleanup.add(() -> sql(url, "DROP TABLE IF EXISTS " + table));
    SimplePool pool = new SimplePool(url);
    cleanup.add(pool);
    JdbcIdempotencyStore store = store(pool, table);
    HeldLease held = claim(store, new ClaimId("acme", "refund_order", "pool-1"), LONG);
    assertThat(store.extendLeases(List.of(held), LONG, WITHIN).extended()).contains(held.token());
    store.dropRenewalConnectionForTest(); // as a failure would: the connection goes back

    String global;
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@GLOBAL.innodb_lock_wait_timeout")) {
      rs.next();
      global = rs.getString(1);
    }
    for (Connection physical : pool.idlePhysical()) {
      try (Statement s = physical.createStatement();
          ResultSet rs = s.executeQuery("SELECT @@SESSION.innodb_lock_wait_timeout")) {
        rs.next();
        assertThat(rs.getString(1)).as("a tool's connection's lock wait").isEqualTo(global);
      }
      assertThat(physical.getNetworkTimeout()).as("a tool's connection's network timeout").isZero();
    }
  }

  /** A minimal pool, as a pool the store cannot see past would behave: LIFO, no reset. */
  static final class SimplePool implements DataSource, AutoCloseable {
    private final String url;
    private final Deque<Connection> idle = new ArrayDeque<>();
    private final List<Connection> all = new ArrayList<>();

    SimplePool(String url) {
      this.url = url;
    }

    synchronized List<Connection> idlePhysical() {
      return new ArrayList<>(idle);
    }

    @Override
    public synchronized Connection getConnection() throws SQLException {
      Connection physical = idle.pollFirst();
      if (physical == null) {
        physical = DriverManager.getConnection(url);
        all.add(physical);
      }
      Connection p = physical;
      boolean[] closed = {false};
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                switch (method.getName()) {
                  case "close":
                    if (!closed[0]) {
                      closed[0] = true;
                      if (!p.getAutoCommit()) {
                        p.rollback();
                        p.setAutoCommit(true);
                      }
                      synchronized (SimplePool.this) {
                        idle.addFirst(p);
                      }
                    }
                    return null;
                  case "isClosed":
                    return closed[0];
                  default:
                    try {
                      return method.invoke(p, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                      throw e.getCause();
                    }
                }
              });
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public synchronized void close() throws SQLException {
      for (Connection c : all) {
        c.close();
      }
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
