package dev.mcpgate.jdbc;

import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.HeldLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL: the read is one statement that inserts the key when there is no row ({@code INSERT ..
 * ON CONFLICT DO NOTHING}) and otherwise reads the existing row back in its second half. {@code DO
 * NOTHING} locks nothing, writes nothing and assigns no transaction id, so a replay, a conflict or
 * an in-flight answer is one read-only round trip; a fresh claim is that statement and the
 * completion. No duplicate-key error is ever raised (which would abort a surrounding transaction).
 *
 * <p>The read-back half sees the statement's snapshot: a row committed by a racing claim after the
 * snapshot was taken blocks the INSERT yet is invisible to the SELECT. Then nothing comes back, and
 * the next round (a new statement, a new snapshot under READ COMMITTED) sees it.
 */
final class PostgresSql extends SqlDialect {
  private final String readSql;
  private final String purgeSql;

  PostgresSql(String table) {
    super(table, "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint");
    this.readSql =
        """
        WITH now AS (SELECT %2$s AS ms),
        ins AS (
          INSERT INTO %1$s (%3$s)
          SELECT ?, ?, ?, ?, 'IN_PROGRESS', ?, 1, now.ms, now.ms + ?, now.ms + ?, NULL, NULL, NULL
          FROM now
          ON CONFLICT (tenant, tool, idem_key) DO NOTHING
          RETURNING *
        )
        SELECT ins.*, now.ms AS now_ms, TRUE AS inserted FROM ins, now
        UNION ALL
        SELECT t.*, now.ms AS now_ms, FALSE AS inserted FROM %1$s t, now
        WHERE t.tenant = ? AND t.tool = ? AND t.idem_key = ?
          AND NOT EXISTS (SELECT 1 FROM ins)
        """
            .formatted(table, nowMs, COLUMNS);
    this.purgeSql =
        "DELETE FROM "
            + table
            + " WHERE expires_at_ms <= "
            + nowMs
            + " AND (tenant, tool, idem_key) IN (SELECT tenant, tool, idem_key FROM "
            + table
            + " WHERE expires_at_ms <= "
            + nowMs
            + " ORDER BY created_at_ms LIMIT ?"
            + " FOR UPDATE SKIP LOCKED)";
  }

  @Override
  Read read(Connection c, ClaimRequest r, boolean latest, int timeoutSeconds) throws SQLException {
    // under READ COMMITTED every statement sees what was committed before it began, inside a
    // transaction too; the INSERT waits for another transaction's uncommitted row of the key
    try (PreparedStatement ps = c.prepareStatement(readSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      int i = bindKey(ps, 1, r.id());
      ps.setString(i++, r.argsHash());
      ps.setString(i++, r.token().value());
      ps.setLong(i++, r.lease().toMillis());
      ps.setLong(i++, r.retention().toMillis());
      bindKey(ps, i, r.id());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Read(null, 0, false);
        }
        return new Read(readRow(rs), rs.getLong("now_ms"), rs.getBoolean("inserted"));
      }
    }
  }

  /** One {@code UPDATE .. RETURNING lease_token}: the extended tokens come back with it. */
  @Override
  Set<LeaseToken> extendMany(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(extendManySql(leases.size()) + " RETURNING lease_token")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setLong(1, lease.toMillis());
      ps.setLong(2, lease.toMillis());
      bindLeases(ps, 3, leases);
      Set<LeaseToken> extended = new HashSet<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          extended.add(new LeaseToken(rs.getString(1)));
        }
      }
      return extended;
    }
  }

  /**
   * {@code lock_timeout} of 1 ms (its least: 0 turns it off) for the rest of the transaction, until
   * restored; a lock timeout raises 55P03.
   */
  @Override
  String noLockWait(Connection c) throws SQLException {
    return queryOne(
        c, "SELECT current_setting('lock_timeout')," + " set_config('lock_timeout', '1ms', true)");
  }

  @Override
  void restoreLockWait(Connection c, String previous) throws SQLException {
    queryOne(c, "SELECT set_config('lock_timeout', ?, true)", previous);
  }

  /** A failed statement aborts the transaction, and the local setting ends with it. */
  @Override
  boolean restoresLockWaitAfterFailure() {
    return false;
  }

  /** The read tried the INSERT already; a read that saw no row lost a race: go round. */
  @Override
  boolean insert(Connection c, ClaimRequest r, long nowMs, int timeoutSeconds) {
    return false;
  }

  @Override
  String purgeSql() {
    return purgeSql;
  }
}
