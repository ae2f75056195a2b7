package dev.mcpgate.jdbc;

import dev.mcpgate.core.spi.HeldLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * H2 2.x: a SELECT, then a plain INSERT (see {@link SelectThenInsertSql}). H2 has no upsert that is
 * atomic under concurrency (its MERGE can fail with "concurrent update"); a lost race shows as a
 * duplicate key (23505) or H2's own concurrent-update error (90131), and goes round.
 */
final class H2Sql extends SelectThenInsertSql {
  private final String purgeSql;

  H2Sql(String table) {
    super(table, "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)", "");
    this.purgeSql =
        "DELETE FROM " + table + " WHERE expires_at_ms <= " + nowMs + " FETCH FIRST ? ROWS ONLY";
  }

  @Override
  boolean isLostRace(SQLException e) {
    return "23505".equals(e.getSQLState()) || e.getErrorCode() == 90131;
  }

  /**
   * H2 looks a four-column row value up by the primary key's first column only; a second,
   * three-column row value that is exactly the primary key makes it look each row up by the key.
   */
  @Override
  String heldRows(int n) {
    return "state = 'IN_PROGRESS' AND (tenant, tool, idem_key) IN ("
        + rowValues(n, "(?, ?, ?)")
        + ") AND (tenant, tool, idem_key, lease_token) IN ("
        + rowValues(n, "(?, ?, ?, ?)")
        + ")";
  }

  @Override
  int bindLeases(PreparedStatement ps, int index, List<HeldLease> leases) throws SQLException {
    int i = index;
    for (HeldLease held : leases) {
      i = ClaimRows.bindKey(ps, i, held.id());
    }
    return super.bindLeases(ps, i, leases);
  }

  /** The session's {@code LOCK_TIMEOUT} 0 until restored: a locked row raises 50200 at once. */
  @Override
  String noLockWait(Connection c) throws SQLException {
    String previous = queryOne(c, "SELECT LOCK_TIMEOUT()");
    run(c, "SET LOCK_TIMEOUT 0");
    return previous;
  }

  @Override
  void restoreLockWait(Connection c, String previous) throws SQLException {
    run(c, "SET LOCK_TIMEOUT " + Long.parseLong(previous));
  }

  @Override
  String purgeSql() {
    return purgeSql;
  }
}
