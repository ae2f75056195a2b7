package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link JdbcIdempotencyStore#verify()} tells a missing claims table from one an older version
 * made, and names the statements that make each usable; after running them the store works and
 * verify passes. On PostgreSQL, MariaDB and H2.
 */
class SchemaVerifyTest {
  @AfterAll
  static void closePools() {
    TestDatabases.closePools("verify-pg", "verify-maria", "verify-h2");
  }

  static Stream<Arguments> databases() {
    return Stream.of(
        Arguments.of(
            JdbcDialect.POSTGRESQL,
            (Supplier<HikariDataSource>)
                () -> TestDatabases.pool(TestDatabases.postgres(), "verify-pg", 4)),
        Arguments.of(
            JdbcDialect.MARIADB,
            (Supplier<HikariDataSource>)
                () -> TestDatabases.pool(TestDatabases.mariadb(), "verify-maria", 4)),
        Arguments.of(
            JdbcDialect.H2,
            (Supplier<HikariDataSource>)
                () -> TestDatabases.pool(TestDatabases.h2(), "verify-h2", 4)));
  }

  private static String fresh(String what) {
    return "mg_" + what + "_" + Long.toHexString(System.nanoTime());
  }

  /** Runs each statement of a text; statements end with {@code ;}, comments are left out. */
  private static void run(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection()) {
      Schema.run(c, sql);
    }
  }

  private static void drop(HikariDataSource ds, String table) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + table);
    }
  }

  /**
   * The table as versions before this one made it: the purge index on expires_at_ms under its old
   * name, no fillfactor on PostgreSQL, on H2 identity columns of 255 UTF-16 units; and, for the
   * check of every column, without result_kind.
   */
  private static String oldDdl(JdbcDialect dialect, String table) {
    return dialect
        .ddl(table)
        .replace(TableName.indexName(table), table + "_expires_idx")
        .replace("(created_at_ms)", "(expires_at_ms)")
        .replace("VARCHAR(510)", "VARCHAR(255)")
        .replace(" WITH (fillfactor = 80)", "")
        .lines()
        .filter(l -> !l.strip().startsWith("result_kind"))
        .reduce("", (a, b) -> a + b + "\n");
  }

  private static void replays(JdbcIdempotencyStore store) {
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ToolCall call = ToolCall.of("constant:acme", "refund_order", "k-v", Map.of("amount", 5));
      gate.execute(call, ResultMapper.utf8(), ctx -> "refund");
      GateResult<String> again = gate.execute(call, ResultMapper.utf8(), ctx -> "again");
      assertThat(again).isInstanceOf(GateResult.Replayed.class);
      assertThat(again.orThrow()).isEqualTo("refund");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aMissingTableIsToldAsMissingWithItsDdl(
      JdbcDialect dialect, Supplier<HikariDataSource> pool) {
    String table = fresh("missing");
    JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool.get()).tableName(table).build();
    ClaimsTableException e = catchThrowableOfType(ClaimsTableException.class, store::verify);
    assertThat(e.problem()).isEqualTo(ClaimsTableException.Problem.MISSING);
    assertThat(e.table()).isEqualTo(table);
    assertThat(e.statements()).isEqualTo(dialect.ddl(table));
    assertThat(e.differences()).isEmpty();
    assertThat(e.getMessage()).contains("does not exist").contains(dialect.ddl(table));
    store.close();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aCurrentTableVerifies(JdbcDialect dialect, Supplier<HikariDataSource> pool)
      throws SQLException {
    HikariDataSource ds = pool.get();
    String table = fresh("current");
    try {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).tableName(table).createSchemaIfMissing(true).build();
      store.verify();
      store.close();
    } finally {
      drop(ds, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void anOlderTableIsToldAsOutOfDateAndItsStatementsBringItUpToDate(
      JdbcDialect dialect, Supplier<HikariDataSource> pool) throws SQLException {
    HikariDataSource ds = pool.get();
    String table = fresh("old");
    try {
      run(ds, oldDdl(dialect, table));
      JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(table).build();

      ClaimsTableException e = catchThrowableOfType(ClaimsTableException.class, store::verify);

      assertThat(e.problem()).isEqualTo(ClaimsTableException.Problem.OUT_OF_DATE);
      assertThat(e.differences()).contains("it has no column result_kind");
      assertThat(e.getMessage())
          .contains("is out of date")
          .contains("no column result_kind")
          .contains("no index on created_at_ms")
          .containsIgnoringCase(table + "_expires_idx")
          .contains(e.statements());
      assertThat(e.statements())
          .contains("ADD COLUMN result_kind VARCHAR(16)")
          .contains("CREATE INDEX " + TableName.indexName(table) + " ON " + table)
          .contains("DROP INDEX ");
      if (dialect == JdbcDialect.POSTGRESQL) {
        assertThat(e.statements()).contains("SET (fillfactor = 80)");
      } else {
        assertThat(e.statements()).doesNotContain("fillfactor");
      }
      if (dialect == JdbcDialect.H2) {
        assertThat(e.getMessage()).contains("its column tenant holds 255");
        assertThat(e.statements()).contains("ALTER COLUMN idem_key SET DATA TYPE VARCHAR(510)");
      } else {
        assertThat(e.statements()).doesNotContain("ALTER COLUMN", "MODIFY COLUMN");
      }

      run(ds, e.statements());
      store.verify();
      replays(store);
      store.close();
    } finally {
      drop(ds, table);
    }
  }
}
