package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped migrations, run by Flyway as docs/stores.md says (their own history table, a baseline
 * of 0 for a schema that holds the application's tables already) on PostgreSQL, MariaDB and H2,
 * each in a schema of its own; then the store and the audit sink work on what they made, without
 * creating anything, and a second run applies nothing.
 */
class FlywayMigrationTest {
  @AfterAll
  static void closePools() {
    TestDatabases.closePools("flyway-" + JdbcDialect.POSTGRESQL, "flyway-" + JdbcDialect.MARIADB);
  }

  private static final String HISTORY = "mcpgate_schema_history";

  private static String fresh() {
    return "mcpgate_fw_" + Long.toHexString(System.nanoTime());
  }

  private static Flyway flyway(TestDatabases.Target target, JdbcDialect dialect, String schema) {
    var config =
        Flyway.configure()
            .dataSource(target.url(), target.user(), target.password())
            .locations(dialect.migrationLocation())
            .table(HISTORY)
            .baselineOnMigrate(true)
            .baselineVersion("0");
    if (schema != null) {
      config.schemas(schema);
    }
    return config.load();
  }

  private static void run(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** Migrates a schema holding an application table, then uses the tables, then migrates again. */
  private static void migrateThenUse(
      TestDatabases.Target target, JdbcDialect dialect, HikariDataSource ds, String schema)
      throws Exception {
    String prefix = schema == null ? "" : schema + ".";
    run(ds, "CREATE TABLE " + prefix + "app_orders (id INT PRIMARY KEY)"); // the app's own

    MigrateResult first = flyway(target, dialect, schema).migrate();
    assertThat(first.migrationsExecuted).isEqualTo(1);
    assertThat(first.targetSchemaVersion).isEqualTo("1");

    String claims = prefix + MigrationScriptsTest.CLAIMS;
    JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(claims).build();
    store.verify(); // the table is there, and current: nothing to upgrade
    if (dialect == JdbcDialect.MARIADB) {
      try (Connection c = ds.getConnection()) {
        assertThat(Schema.proceduresExist(c, claims)).isTrue();
      }
    }
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ToolCall call = ToolCall.of("constant:acme", "refund_order", "k-fw", Map.of("amount", 5));
      GateResult<String> once =
          gate.execute(call, ResultMapper.utf8(), ctx -> "refund " + runs.incrementAndGet());
      GateResult<String> again =
          gate.execute(call, ResultMapper.utf8(), ctx -> "refund " + runs.incrementAndGet());
      assertThat(once).isInstanceOf(GateResult.Executed.class);
      assertThat(again).isInstanceOf(GateResult.Replayed.class);
      assertThat(again.orThrow()).isEqualTo("refund 1");
    }
    store.close();

    String audit = prefix + MigrationScriptsTest.AUDIT;
    try (JdbcAuditSink sink = JdbcAuditSink.builder(ds).tableName(audit).build()) {
      sink.record(
          new AuditRecord(
              Instant.now().truncatedTo(ChronoUnit.MILLIS),
              "constant:acme",
              "refund_order",
              "k-fw",
              "v1:abc",
              "[amount]",
              AuditDecision.EXECUTED,
              null,
              1,
              null,
              12));
      assertThat(sink.flush(Duration.ofSeconds(30))).isTrue();
      assertThat(sink.written()).isEqualTo(1);
    }
    assertThat(JdbcAuditLog.of(ds, audit).history("constant:acme", "refund_order", "k-fw"))
        .hasSize(1);

    MigrateResult second = flyway(target, dialect, schema).migrate();
    assertThat(second.migrationsExecuted).isZero();
  }

  /** Runs the migrations in a schema made for the test (a database on MariaDB), then drops it. */
  private static void inASchemaOfItsOwn(
      TestDatabases.Target target, JdbcDialect dialect, String create, String drop)
      throws Exception {
    HikariDataSource ds = TestDatabases.pool(target, "flyway-" + dialect, 4);
    String schema = fresh();
    run(ds, create + " " + schema);
    try {
      migrateThenUse(target, dialect, ds, schema);
    } finally {
      run(ds, drop + " " + schema + (dialect == JdbcDialect.POSTGRESQL ? " CASCADE" : ""));
    }
  }

  @Test
  void postgresql() throws Exception {
    inASchemaOfItsOwn(
        TestDatabases.postgres(), JdbcDialect.POSTGRESQL, "CREATE SCHEMA", "DROP SCHEMA");
  }

  @Test
  void mariadb() throws Exception {
    inASchemaOfItsOwn(
        TestDatabases.mariadb(), JdbcDialect.MARIADB, "CREATE DATABASE", "DROP DATABASE");
  }

  @Test
  void h2() throws Exception {
    TestDatabases.Target h2 =
        new TestDatabases.Target(
            "jdbc:h2:mem:" + fresh() + ";DB_CLOSE_DELAY=-1", "sa", "", "embedded H2");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(h2.url());
    config.setUsername(h2.user());
    config.setPassword(h2.password());
    config.setMaximumPoolSize(4);
    try (HikariDataSource ds = new HikariDataSource(config)) {
      migrateThenUse(h2, JdbcDialect.H2, ds, null);
    }
  }
}
