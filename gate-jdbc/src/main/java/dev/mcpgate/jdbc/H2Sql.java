package dev.mcpgate.jdbc;

import java.sql.SQLException;

/**
 * H2 2.x: a SELECT, then a plain INSERT (see {@link SelectThenInsertSql}). H2 has no upsert that
 * is atomic under concurrency (its MERGE can fail with "concurrent update"); a lost race shows as
 * a duplicate key (23505) or H2's own concurrent-update error (90131), and goes round.
 */
final class H2Sql extends SelectThenInsertSql {
  private final String purgeSql;

  H2Sql(String table) {
    super(table, "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)", "");
    this.purgeSql = "DELETE FROM " + table + " WHERE expires_at_ms <= " + nowMs
        + " FETCH FIRST ? ROWS ONLY";
  }

  @Override
  boolean isLostRace(SQLException e) {
    return "23505".equals(e.getSQLState()) || e.getErrorCode() == 90131;
  }

  @Override
  String purgeSql() {
    return purgeSql;
  }
}
