package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The audit table on PostgreSQL, MariaDB and H2: what is written reads back exactly, many threads
 * lose nothing, a full queue and a failing table are counted, never thrown at callers.
 */
class JdbcAuditTest {
  @AfterAll
  static void closePools() {
    TestDatabases.closePools(
        "audit-pg", "audit-maria"); // their connections would stay open for the later suites
  }

  static Stream<Arguments> databases() {
    return Stream.of(
        Arguments.of(
            "PostgreSQL",
            (java.util.function.Supplier<HikariDataSource>)
                () -> TestDatabases.pool(TestDatabases.postgres(), "audit-pg", 4)),
        Arguments.of(
            "MariaDB",
            (java.util.function.Supplier<HikariDataSource>)
                () -> TestDatabases.pool(TestDatabases.mariadb(), "audit-maria", 4)),
        Arguments.of(
            "H2",
            (java.util.function.Supplier<HikariDataSource>)
                () -> TestDatabases.pool(TestDatabases.h2(), "audit-h2", 4)));
  }

  private static String freshTable(DataSource ds, String name) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + name);
    }
    return name;
  }

  private static AuditRecord record(String key, AuditDecision decision, int attempt) {
    return new AuditRecord(
        Instant.now().truncatedTo(ChronoUnit.MILLIS),
        "acme",
        "refund_order",
        key,
        "v1:abc",
        "[amount_cents, order_id]",
        decision,
        decision == AuditDecision.CONFLICT ? "other arguments" : null,
        attempt,
        "refund r_1",
        1234);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void recordsReadBackExactlyAndInOrder(
      String db, java.util.function.Supplier<HikariDataSource> pool) throws Exception {
    DataSource ds = pool.get();
    String table = freshTable(ds, "mcpgate_audit_test");
    String key = "ord_9f2-\u00e9-\ud83d\ude00";
    List<AuditRecord> sent =
        List.of(
            record(key, AuditDecision.EXECUTED, 1),
            record(key, AuditDecision.REPLAYED, 1),
            record(key, AuditDecision.CONFLICT, 0),
            new AuditRecord(
                Instant.now().truncatedTo(ChronoUnit.MILLIS),
                null,
                "refund_order",
                null,
                null,
                "[]",
                AuditDecision.TENANT_REFUSED,
                "no tenant",
                0,
                null,
                7));
    try (JdbcAuditSink sink =
        JdbcAuditSink.builder(ds).tableName(table).createSchemaIfMissing(true).build()) {
      sent.forEach(sink::record);
      assertThat(sink.flush(Duration.ofSeconds(30))).isTrue();
      assertThat(sink.written()).isEqualTo(4);
    }

    JdbcAuditLog log = JdbcAuditLog.of(ds, table);
    assertThat(log.history("acme", "refund_order", key))
        .containsExactlyElementsOf(sent.subList(0, 3));
    assertThat(log.search("acme", "order_id", 10)).hasSize(3);
    assertThat(log.search("acme", "%", 10)).isEmpty(); // literal, not a wildcard
  }

  @org.junit.jupiter.api.Test
  void theWriterRunsOnAnExecutorOfTheCallersAndItsCloseEndsTheWriterNotTheExecutor()
      throws Exception {
    DataSource ds = TestDatabases.pool(TestDatabases.h2(), "audit-h2-executor", 2);
    String table = freshTable(ds, "mcpgate_audit_exec");
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newCachedThreadPool(
            dev.mcpgate.core.spi.DaemonThreads.named("users-audit"));
    java.util.concurrent.atomic.AtomicReference<String> ranOn =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
    try {
      try (JdbcAuditSink sink =
          JdbcAuditSink.builder(ds)
              .tableName(table)
              .createSchemaIfMissing(true)
              .executor(
                  task ->
                      pool.execute(
                          () -> {
                            ranOn.set(Thread.currentThread().getName());
                            task.run();
                            ended.countDown();
                          }))
              .build()) {
        sink.record(record("k", AuditDecision.EXECUTED, 1));
        assertThat(sink.flush(Duration.ofSeconds(30))).isTrue();
        assertThat(sink.written()).isEqualTo(1);
      }
      assertThat(ranOn.get()).startsWith("users-audit-");
      // close() returns once the writer has finished; the task returns just after
      assertThat(ended.await(10, java.util.concurrent.TimeUnit.SECONDS))
          .as("close ends the writer's task")
          .isTrue();
      assertThat(pool.isShutdown()).as("the caller's executor is the caller's").isFalse();
    } finally {
      pool.shutdownNow();
      ((HikariDataSource) ds).close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void manyThreadsLoseNothing(String db, java.util.function.Supplier<HikariDataSource> pool)
      throws Exception {
    DataSource ds = pool.get();
    String table = freshTable(ds, "mcpgate_audit_race");
    int threads = 8;
    int each = 250;
    try (JdbcAuditSink sink =
        JdbcAuditSink.builder(ds).tableName(table).createSchemaIfMissing(true).build()) {
      ExecutorService pool8 = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        work.add(
            pool8.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < each; i++) {
                    sink.record(record("t" + thread + "-" + i, AuditDecision.EXECUTED, 1));
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : work) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool8.shutdown();
      assertThat(sink.flush(Duration.ofSeconds(60))).isTrue();
      assertThat(sink.written()).isEqualTo(threads * each);
      assertThat(sink.dropped()).isZero();
      assertThat(sink.failed()).isZero();
    }
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(threads * each);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aFullQueueDropsAndCountsAndAFailingTableCountsWithoutThrowing(
      String db, java.util.function.Supplier<HikariDataSource> pool) throws Exception {
    HikariDataSource real = pool.get();
    String table = freshTable(real, "mcpgate_audit_full");
    CountDownLatch slow = new CountDownLatch(1);
    CountDownLatch writerHeld = new CountDownLatch(1);
    DataSource held = new HeldDataSource(real, writerHeld, slow);
    try (JdbcAuditSink sink =
        JdbcAuditSink.builder(held)
            .tableName(table)
            .createSchemaIfMissing(true)
            .queueCapacity(5)
            .build()) {
      sink.record(record("k0", AuditDecision.EXECUTED, 1));
      // the writer took k0 as its batch and waits for a connection
      assertThat(writerHeld.await(30, TimeUnit.SECONDS)).isTrue();
      for (int i = 1; i < 50; i++) {
        sink.record(record("k" + i, AuditDecision.EXECUTED, 1));
      }
      long dropped = sink.dropped();
      slow.countDown();
      assertThat(sink.flush(Duration.ofSeconds(30))).isTrue();
      // k1 to k5 wait in the queue of five; the 44 after them are dropped, and counted
      assertThat(dropped).isEqualTo(44);
      assertThat(sink.written()).isEqualTo(6);
    }

    try (JdbcAuditSink missing =
        JdbcAuditSink.builder(real).tableName("mcpgate_no_such_audit").build()) {
      missing.record(record("k", AuditDecision.EXECUTED, 1));
      assertThat(missing.flush(Duration.ofSeconds(30))).isTrue();
      assertThat(missing.failed()).isEqualTo(1);
      assertThat(missing.written()).isZero();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void oneRecordTheDatabaseRefusesIsLostAloneNeverItsBatch(
      String db, java.util.function.Supplier<HikariDataSource> pool) throws Exception {
    DataSource ds = pool.get();
    String table = freshTable(ds, "mcpgate_audit_poison");
    try (Connection c = ds.getConnection()) {
      Schema.run(c, JdbcDialect.detect(c.getMetaData()).auditDdl(table));
      try (Statement st = c.createStatement()) {
        // a record this table refuses, whatever the sink does to it
        st.execute(
            "ALTER TABLE "
                + table
                + " ADD CONSTRAINT "
                + table
                + "_no_poison CHECK (tenant <> 'poison')");
      }
    }
    List<AuditRecord> sent = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      sent.add(record("k" + i, AuditDecision.EXECUTED, 1));
    }
    // a NUL in an argument name (PostgreSQL refuses NUL in text) and a lone surrogate
    sent.set(
        3,
        new AuditRecord(
            Instant.now().truncatedTo(ChronoUnit.MILLIS),
            "acme",
            "refund_order",
            "k3",
            "v1:abc",
            "[amount\u0000cents, \ud800order]",
            AuditDecision.EXECUTED,
            null,
            1,
            null,
            5));
    sent.set(
        7,
        new AuditRecord(
            Instant.now().truncatedTo(ChronoUnit.MILLIS),
            "poison",
            "refund_order",
            "k7",
            "v1:abc",
            "[]",
            AuditDecision.EXECUTED,
            null,
            1,
            null,
            5));
    try (JdbcAuditSink sink = JdbcAuditSink.builder(ds).tableName(table).build()) {
      sent.forEach(sink::record);
      assertThat(sink.flush(Duration.ofSeconds(30))).isTrue();
      assertThat(sink.failed()).as("only the refused record is lost").isEqualTo(1);
      assertThat(sink.written()).isEqualTo(19);
    }
    JdbcAuditLog log = JdbcAuditLog.of(ds, table);
    assertThat(log.history("acme", "refund_order", "k3"))
        .singleElement()
        .satisfies(r -> assertThat(r.arguments()).isEqualTo("[amount\ufffdcents, \ufffdorder]"));
    assertThat(log.history("acme", "refund_order", "k19")).hasSize(1);
  }

  /** The real data source, whose first connection waits until the test lets it go. */
  private static final class HeldDataSource implements DataSource {
    private final DataSource real;
    private final CountDownLatch entered;
    private final CountDownLatch release;

    HeldDataSource(DataSource real, CountDownLatch entered, CountDownLatch release) {
      this.real = real;
      this.entered = entered;
      this.release = release;
    }

    @Override
    public Connection getConnection() throws SQLException {
      entered.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return real.getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return real.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      real.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      real.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return real.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return real.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return real.isWrapperFor(iface);
    }
  }
}
