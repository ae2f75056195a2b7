package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * H2 2.x: a SELECT, then a plain INSERT (see {@link SelectThenInsertSql}). H2 has no upsert that is
 * atomic under concurrency (its MERGE can fail with "concurrent update"); a lost race shows as a
 * duplicate key (23505) or H2's own concurrent-update error (90131), and goes round.
 */
final class H2Sql extends SelectThenInsertSql {
  private final String purgeSql;
  private final String completeInTransactionSql;

  H2Sql(String table) {
    super(table, "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)", "");
    this.purgeSql =
        "DELETE FROM " + table + " WHERE expires_at_ms <= " + nowMs + " FETCH FIRST ? ROWS ONLY";
    String at = "GREATEST(" + nowMs + ", ?)";
    this.completeInTransactionSql =
        "UPDATE "
            + table
            + " SET state = 'COMPLETED', completed_at_ms = "
            + at
            + ", expires_at_ms = "
            + at
            + " + ?, result_kind = ?, result = ?"
            + " WHERE "
            + ClaimRows.KEY
            + " AND lease_token = ? AND state <> 'COMPLETED'";
  }

  /**
   * H2 keeps {@code CURRENT_TIMESTAMP} for the whole of a transaction (in its regular and
   * PostgreSQL modes): a completion written at the end of a single-commit transaction would take
   * its claim's time, and its result expire early by as long as the action ran. Inside a
   * transaction of an H2 database in this process (whose clock is this JVM's), the completion's
   * time is therefore at least this JVM's clock. (An H2 server over TCP keeps its own clock: there
   * the completion keeps the transaction's time.)
   */
  @Override
  boolean complete(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention)
      throws SQLException {
    if (c.getAutoCommit() || !inProcess(c)) {
      return super.complete(c, id, token, result, retention);
    }
    try (PreparedStatement ps = c.prepareStatement(completeInTransactionSql)) {
      long now = System.currentTimeMillis();
      ps.setLong(1, now);
      ps.setLong(2, now);
      ps.setLong(3, retention.toMillis());
      ps.setString(4, result.kind().name());
      ps.setBytes(5, result.body());
      int i = ClaimRows.bindKey(ps, 6, id);
      ps.setString(i, token.value());
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * @return true when the H2 database runs in this process (in memory, or a file opened here), not
   *     behind an H2 server
   */
  private static boolean inProcess(Connection c) throws SQLException {
    String url = c.getMetaData().getURL();
    return url != null
        && url.startsWith("jdbc:h2:")
        && !url.startsWith("jdbc:h2:tcp:")
        && !url.startsWith("jdbc:h2:ssl:");
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
