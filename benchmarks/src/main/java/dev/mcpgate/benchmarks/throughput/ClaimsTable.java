package dev.mcpgate.benchmarks.throughput;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The SQL {@link GrowthThroughput} runs on the claims table beside the store: filling it with rows
 * that look like completed claims, one set-based statement per chunk; analyzing it; its size; and
 * dropping it. The table itself is created by the store.
 *
 * <p>A filled row: tenant {@code context:tenant-<0..99>}, one of five tool names, a random UUID
 * string as the key, an argument hash {@code v1:} + 64 hex digits, state {@code COMPLETED}, a UUID
 * lease token, attempt 1, result kind {@code VALUE} and a UTF-8 JSON result of 300 bytes. Row
 * {@code g} of {@code n} is created at {@code now - window + g * window / n} (database clock, so
 * rows are appended in claim order, as in real use), completed 20 to 219 ms later, its lease 5 s
 * after creation, and it expires {@code retention} after creation: with a window of twice the
 * retention, the older half of the table is expired.
 */
final class ClaimsTable {
  private static final int CHUNK = 1_000_000;
  private static final String COLUMNS =
      "(tenant, tool, idem_key, args_hash, state, lease_token, attempt, created_at_ms,"
          + " lease_expires_at_ms, expires_at_ms, completed_at_ms, result_kind, result)";

  private final DataSource dataSource;
  private final Contender.Database database;
  private final String table;

  ClaimsTable(DataSource dataSource, Contender.Database database, String table) {
    this.dataSource = dataSource;
    this.database = database;
    this.table = table;
  }

  /** Drops the table (and on MariaDB/MySQL the store's two procedures). */
  void drop() throws SQLException {
    Sql.execute(dataSource, "DROP TABLE IF EXISTS " + table);
    if (database == Contender.Database.MARIADB) {
      Sql.execute(
          dataSource,
          "DROP PROCEDURE IF EXISTS " + table + "_claim_v1",
          "DROP PROCEDURE IF EXISTS " + table + "_complete_v1");
    }
  }

  /**
   * Inserts {@code rows} completed claims spread over {@code window} (see the class comment), in
   * chunks of a million rows, one statement each, then analyzes the table.
   */
  void fill(long rows, Duration window, Duration retention) throws SQLException {
    long windowMs = window.toMillis();
    for (long from = 0; from < rows; from += CHUNK) {
      long to = Math.min(rows, from + CHUNK) - 1;
      String created =
          (database == Contender.Database.POSTGRESQL
                  ? "(%s - %d + g * %d / %d)"
                  : "(%s - %d + seq * %d DIV %d)")
              .formatted(nowMs(), windowMs, windowMs, rows);
      Sql.execute(dataSource, fillSql(from, to, created, retention.toMillis()));
    }
    analyze();
  }

  private String nowMs() {
    return database == Contender.Database.POSTGRESQL
        ? "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000 AS BIGINT)"
        : "(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
  }

  private String fillSql(long from, long to, String created, long retentionMs) {
    if (database == Contender.Database.POSTGRESQL) {
      return ("INSERT INTO %s %s SELECT 'context:tenant-' || (g %% 100),"
              + " (ARRAY['refund_order','send_mail','stop_session','create_ticket','add_note'])"
              + "[1 + g %% 5], gen_random_uuid()::text,"
              + " 'v1:' || md5(g::text) || md5((g + 1)::text), 'COMPLETED',"
              + " gen_random_uuid()::text, 1, c, c + 5000, c + %d, c + 20 + g %% 200, 'VALUE',"
              + " convert_to('{\"status\":\"done\",\"id\":\"' || md5(g::text || 'r')"
              + " || '\",\"note\":\"' || repeat('x', 232) || '\"}', 'UTF8')"
              + " FROM (SELECT g, %s AS c FROM generate_series(CAST(%d AS BIGINT), %d) AS g) s")
          .formatted(table, COLUMNS, retentionMs, created, from, to);
    }
    return ("INSERT INTO %s %s SELECT CONCAT('context:tenant-', g %% 100), ELT(1 + g %% 5,"
            + " 'refund_order','send_mail','stop_session','create_ticket','add_note'), UUID(),"
            + " CONCAT('v1:', MD5(g), MD5(g + 1)), 'COMPLETED', UUID(), 1, c, c + 5000, c + %d,"
            + " c + 20 + g %% 200, 'VALUE', CONCAT('{\"status\":\"done\",\"id\":\"',"
            + " MD5(CONCAT(g, 'r')), '\",\"note\":\"', REPEAT('x', 232), '\"}') FROM (SELECT"
            + " seq AS g, %s AS c FROM seq_%d_to_%d) s")
        .formatted(table, COLUMNS, retentionMs, created, from, to);
  }

  /** PostgreSQL: {@code VACUUM ANALYZE}; MariaDB/MySQL: {@code ANALYZE TABLE}. */
  void analyze() throws SQLException {
    Sql.execute(
        dataSource,
        database == Contender.Database.POSTGRESQL
            ? "VACUUM ANALYZE " + table
            : "ANALYZE TABLE " + table);
  }

  /** PostgreSQL: a plain {@code VACUUM} (what autovacuum would run); elsewhere nothing. */
  void vacuum() throws SQLException {
    if (database == Contender.Database.POSTGRESQL) {
      Sql.execute(dataSource, "VACUUM " + table);
    }
  }

  /**
   * @return the table's size in MB and its indexes', PostgreSQL: {@code pg_relation_size} (the
   *     heap) plus its TOAST, and {@code pg_indexes_size}; MariaDB/MySQL: {@code data_length} and
   *     {@code index_length} of {@code information_schema.TABLES} (InnoDB's estimates); and, on
   *     PostgreSQL, the live and dead rows of {@code pg_stat_user_tables}
   */
  Size size() throws SQLException {
    String sql =
        database == Contender.Database.POSTGRESQL
            ? "SELECT pg_total_relation_size(c.oid) - pg_indexes_size(c.oid),"
                + " pg_indexes_size(c.oid), s.n_live_tup, s.n_dead_tup FROM pg_class c"
                + " JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = '"
                + table
                + "'::regclass"
            : "SELECT data_length, index_length, table_rows, -1 FROM information_schema.TABLES"
                + " WHERE table_schema = DATABASE() AND table_name = '"
                + table
                + "'";
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      Sql.expect(rs.next(), "no such table", table);
      return new Size(rs.getLong(1) / 1e6, rs.getLong(2) / 1e6, rs.getLong(3), rs.getLong(4));
    }
  }

  /** A table's size: MB of rows and of indexes, and the live and dead rows (-1: not known). */
  record Size(double tableMb, double indexMb, long live, long dead) {}
}
