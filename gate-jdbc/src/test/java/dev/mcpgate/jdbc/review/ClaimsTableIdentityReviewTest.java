package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.ClaimsTableException;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Review: a claim is identified by (tenant, tool, key) "kept exactly as given"; {@code "k"} and
 * {@code " k"} are two keys (docs/design.md), and MariaDB's table uses VARBINARY so that keys
 * "compare byte for byte: no case folding, no trailing-space padding" (docs/stores.md). {@code
 * verify()} is documented as the startup check that compares a table with this version's; it
 * refuses H2's VARCHAR_IGNORECASE. It does not look at how the key columns compare on PostgreSQL,
 * MariaDB or (beyond IGNORECASE) H2: a claims table that a user created, or a DBA adjusted, with
 * key columns that compare without case or without trailing spaces passes {@code verify()}, and two
 * different keys then share one row: the second intent is answered with a replay of the first one's
 * result, an intent that never ran.
 *
 * <p>Each test passes when {@code verify()} refuses the table (a {@link ClaimsTableException}), or
 * when neither key is answered with the other's result: the gate now refuses a claim the store
 * answers with another key's row, naming the table's comparison. Found in review with the replay
 * told. A {@code citext} key, a MariaDB prefix primary key and MariaDB's claim procedure find no
 * row for the other key and meet a duplicate key on every insert: they fail closed as lost races,
 * with a message naming the same cause.
 */
class ClaimsTableIdentityReviewTest {

  private static final Map<String, Object> ARGS = Map.of("order_id", "ord_1", "amount", 10);

  /** The PostgreSQL DDL of this version, with the key columns' type replaced. */
  private static String postgresTable(String table, String keyType) {
    return "CREATE TABLE "
        + table
        + " ("
        + " tenant "
        + keyType
        + " NOT NULL, tool "
        + keyType
        + " NOT NULL, idem_key "
        + keyType
        + " NOT NULL,"
        + " args_hash VARCHAR(80) NOT NULL, state VARCHAR(16) NOT NULL,"
        + " lease_token VARCHAR(64) NOT NULL, attempt INTEGER NOT NULL,"
        + " created_at_ms BIGINT NOT NULL, lease_expires_at_ms BIGINT NOT NULL,"
        + " expires_at_ms BIGINT NOT NULL, completed_at_ms BIGINT, result_kind VARCHAR(16),"
        + " result BYTEA, PRIMARY KEY (tenant, tool, idem_key)) WITH (fillfactor = 80);"
        + " CREATE INDEX "
        + table
        + "_created_idx ON "
        + table
        + " (created_at_ms)";
  }

  /** The MariaDB DDL of this version, with the key columns' type replaced. */
  private static String mariadbTable(String table, String keyType) {
    return "CREATE TABLE "
        + table
        + " ("
        + " tenant "
        + keyType
        + " NOT NULL, tool "
        + keyType
        + " NOT NULL, idem_key "
        + keyType
        + " NOT NULL,"
        + " args_hash VARCHAR(80) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
        + " state VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
        + " lease_token VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,"
        + " attempt INT NOT NULL, created_at_ms BIGINT NOT NULL,"
        + " lease_expires_at_ms BIGINT NOT NULL, expires_at_ms BIGINT NOT NULL,"
        + " completed_at_ms BIGINT,"
        + " result_kind VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin, result LONGBLOB,"
        + " PRIMARY KEY (tenant, tool, idem_key), KEY "
        + table
        + "_created_idx (created_at_ms)) ENGINE=InnoDB";
  }

  private static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      for (String s : sql.split(";")) {
        if (!s.isBlank()) {
          st.execute(s);
        }
      }
    }
  }

  private static String fresh(String what) {
    return "rv_" + what + "_" + Long.toHexString(System.nanoTime());
  }

  /**
   * Verifies the table; when verify passes, calls the gate with {@code first}, then with {@code
   * second} (the same tool, tenant and arguments, another key), and asserts each runs as its own
   * claim or is refused naming the table: never a replay of the other's result.
   */
  private static void twoKeysAreTwoClaims(
      DataSource ds, String table, String first, String second) {
    JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(table).build();
    try {
      try {
        store.verify();
      } catch (ClaimsTableException refused) {
        return; // the promise kept: the table is refused, naming why
      }
      IdempotencyGate gate = IdempotencyGate.builder(store).build();
      AtomicInteger runs = new AtomicInteger();
      String tenant = "acme-" + UUID.randomUUID();
      GateResult<String> one =
          gate.execute(
              ToolCall.of(tenant, "refund_order", first, ARGS),
              ResultMapper.utf8(),
              ctx -> "refund " + runs.incrementAndGet() + " under key [" + first + "]");
      GateResult<String> two =
          gate.execute(
              ToolCall.of(tenant, "refund_order", second, ARGS),
              ResultMapper.utf8(),
              ctx -> "refund " + runs.incrementAndGet() + " under key [" + second + "]");
      assertThat(List.of(one, two))
          .as(
              "keys [%s] and [%s] on a table verify() passed: each its own claim, or refused"
                  + " naming the table, never a replay of the other's result (runs: %s)",
              first, second, runs.get())
          .allSatisfy(ClaimsTableIdentityReviewTest::ownClaimOrRefusedNamingTheTable);
      assertThat(runs.get()).isLessThanOrEqualTo(2);
    } finally {
      store.close();
    }
  }

  /** Creates {@code table} by {@code ddl}, calls the two keys on it, and drops it. */
  private static void twoKeysOnTable(
      DataSource ds, String table, String ddl, String first, String second) throws SQLException {
    exec(ds, ddl);
    try {
      twoKeysAreTwoClaims(ds, table, first, second);
    } finally {
      exec(ds, "DROP TABLE IF EXISTS " + table);
    }
  }

  /**
   * Executed (the table kept the keys apart), or failed closed by the gate, naming the table's
   * comparison: the row the store answered with is another key's.
   */
  static void ownClaimOrRefusedNamingTheTable(GateResult<String> r) {
    assertThat(r).isNotInstanceOf(GateResult.Replayed.class);
    if (r instanceof GateResult.Failed<String> f) {
      assertThat(f.message()).contains("does not keep tenant, tool and key as sent");
      assertThat(f.effect()).isEqualTo(GateResult.Effect.NO);
    }
  }

  // ---------------------------------------------------------------- PostgreSQL

  /** A nondeterministic ICU collation (case-insensitive): PostgreSQL 12+ allows it in a key. */
  @Test
  void postgresCaseInsensitiveIcuCollationIsRefusedOrKeepsKeysApart() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.postgres("idn-pg-icu", 2)) {
      String table = fresh("pg_icu");
      exec(
          ds,
          "CREATE COLLATION IF NOT EXISTS rv_ci (provider = icu, locale = 'und-u-ks-level2',"
              + " deterministic = false)");
      twoKeysOnTable(
          ds, table, postgresTable(table, "VARCHAR(255) COLLATE rv_ci"), "Refund-1", "refund-1");
    }
  }

  /** CHAR(255): blank-padded, and bpchar comparison ignores trailing spaces. */
  @Test
  void postgresCharKeyIsRefusedOrKeepsTrailingSpaces() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.postgres("idn-pg-char", 2)) {
      String table = fresh("pg_char");
      twoKeysOnTable(ds, table, postgresTable(table, "CHAR(255)"), "k", "k ");
    }
  }

  /**
   * citext key columns: the read finds no row for a key of another case (the gate binds a text
   * parameter) while the primary key refuses its INSERT, round after round; the claim fails closed
   * and its message names the likely cause.
   */
  @Test
  void postgresCitextKeyFailsClosedNamingTheTable() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.postgres("idn-pg-citext", 2)) {
      exec(ds, "CREATE EXTENSION IF NOT EXISTS citext");
      String table = fresh("pg_citext");
      twoKeysOnTable(ds, table, postgresTable(table, "citext"), "Refund-1", "refund-1");
    }
  }

  // ---------------------------------------------------------------- MariaDB

  /**
   * VARCHAR(1020) in latin1 (MariaDB's historical server default, latin1_swedish_ci): as wide as
   * VARBINARY(1020) by the width check, but case-insensitive and PAD SPACE.
   */
  @Test
  void mariadbCaseInsensitiveVarcharIsRefusedOrKeepsKeysApart() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.mariadb("idn-maria-ci", 2)) {
      String table = fresh("maria_ci");
      twoKeysOnTable(
          ds,
          table,
          mariadbTable(table, "VARCHAR(1020) CHARACTER SET latin1"),
          "Refund-1",
          "refund-1");
    }
  }

  /** The same table: "k" and "k " are one key under a PAD SPACE collation. */
  @Test
  void mariadbPadSpaceVarcharIsRefusedOrKeepsTrailingSpaces() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.mariadb("idn-maria-pad", 2)) {
      String table = fresh("maria_pad");
      twoKeysOnTable(
          ds,
          table,
          mariadbTable(table, "VARCHAR(1020) CHARACTER SET latin1 COLLATE latin1_bin"),
          "k",
          "k ");
    }
  }

  /**
   * utf8mb4_general_ci VARCHAR(255): the natural hand-written table (255 characters, as the docs
   * say a key is); the width check reads the driver's precision.
   */
  @Test
  void mariadbUtf8mb4GeneralCiVarchar255IsRefusedOrKeepsKeysApart() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.mariadb("idn-maria-mb4", 2)) {
      String table = fresh("maria_mb4");
      twoKeysOnTable(
          ds,
          table,
          mariadbTable(table, "VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"),
          "Refund-1",
          "refund-1");
    }
  }

  /** A primary key on the key's first 8 bytes: "refund-01" and "refund-02" are one key to it. */
  @Test
  void mariadbPrefixPrimaryKeyFailsClosedNamingTheTable() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.mariadb("idn-maria-prefix", 2)) {
      String table = fresh("maria_prefix");
      String ddl =
          mariadbTable(table, "VARBINARY(1020)")
              .replace(
                  "PRIMARY KEY (tenant, tool, idem_key)",
                  "PRIMARY KEY (tenant, tool, idem_key(8))");
      twoKeysOnTable(ds, table, ddl, "refund-01", "refund-02");
    }
  }

  /**
   * The same case-insensitive table in single-commit mode with a zero in-flight wait, where a claim
   * is one {@code CALL} of the table's claim procedure: the row it answers with must name the key
   * the table holds, not the key it was asked for, or the gate cannot see that it is another key's.
   */
  @Test
  void mariadbSingleCommitClaimProcedureKeepsKeysApart() throws SQLException {
    try (HikariDataSource ds = ReviewDatabases.mariadb("idn-maria-proc", 2)) {
      String table = fresh("maria_proc");
      exec(ds, mariadbTable(table, "VARCHAR(1020) CHARACTER SET latin1"));
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).tableName(table).createSchemaIfMissing(true).build();
      try {
        store.verify(); // creates the procedures beside the table the user made
        IdempotencyGate gate =
            IdempotencyGate.builder(store)
                .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
                .build();
        AtomicInteger runs = new AtomicInteger();
        String tenant = "acme-" + UUID.randomUUID();
        List<GateResult<String>> results = new ArrayList<>();
        for (String key : List.of("Refund-1", "refund-1")) {
          results.add(
              gate.executeSingleCommit(
                  ToolCall.of(tenant, "refund_order", key, ARGS),
                  ResultMapper.utf8(),
                  store.singleCommit(),
                  (connection, ctx) ->
                      "refund " + runs.incrementAndGet() + " under [" + key + "]"));
        }
        assertThat(results)
            .as("single-commit through the claim procedure (runs: %s)", runs.get())
            .allSatisfy(ClaimsTableIdentityReviewTest::ownClaimOrRefusedNamingTheTable);
        assertThat(runs.get()).isEqualTo(1);
      } finally {
        store.close();
        exec(
            ds,
            "DROP TABLE IF EXISTS "
                + table
                + "; DROP PROCEDURE IF EXISTS "
                + table
                + "_claim_v1; DROP PROCEDURE IF EXISTS "
                + table
                + "_complete_v1");
      }
    }
  }

  // ---------------------------------------------------------------- H2

  /**
   * An H2 database whose collation compares without case ({@code SET COLLATION ENGLISH STRENGTH
   * SECONDARY}, or PRIMARY): the columns stay VARCHAR (not VARCHAR_IGNORECASE), so the IGNORECASE
   * check does not see it.
   */
  @Test
  void h2CaseInsensitiveDatabaseCollationIsRefusedOrKeepsKeysApart() throws SQLException {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:" + fresh("h2_collation") + ";DB_CLOSE_DELAY=-1");
    exec(h2, "SET COLLATION ENGLISH STRENGTH SECONDARY");
    JdbcIdempotencyStore creator =
        JdbcIdempotencyStore.builder(h2)
            .tableName("review_collation")
            .createSchemaIfMissing(true)
            .build();
    try {
      creator.verify(); // creates the table with this version's DDL
    } catch (ClaimsTableException refused) {
      return; // the promise kept: the table is refused, naming why
    } finally {
      creator.close();
    }
    twoKeysAreTwoClaims(h2, "review_collation", "Refund-1", "refund-1");
  }
}
