package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL: the read is one statement that reads the key's row and, when there is none, inserts
 * the key ({@code INSERT .. ON CONFLICT DO NOTHING}), returning whichever it found. A replay, a
 * conflict or an in-flight answer finds the row and runs no insert: it locks nothing, writes
 * nothing and assigns no transaction id, one read-only round trip; a fresh claim is that statement
 * and the completion. No duplicate-key error is ever raised (which would abort a surrounding
 * transaction).
 *
 * <p>Both halves see the statement's snapshot: a row committed by a racing claim after the snapshot
 * was taken blocks the INSERT yet is invisible to the read. Then nothing comes back, and the next
 * round (a new statement, a new snapshot under READ COMMITTED) sees it. In single-commit mode with
 * a zero wait, the same statement sets {@code lock_timeout} to its least before the INSERT and puts
 * it back after it ({@code set_config(.., true)}), so the claim stays one round trip.
 */
final class PostgresSql extends SqlDialect {
  private final String readSql;
  private final String readNoWaitSql;
  private static final String NO_CLAIM_ROW = "mcpgate: no claim row of this attempt";
  private static final String INVALID_TEXT = "22P02";

  private final String purgeSql;
  private final String completeAndCommitSql;

  PostgresSql(String table) {
    super(table, "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint");
    // %4$s: the CTE that sets lock_timeout (or nothing); %5$s: what the INSERT's source joins
    String claim =
        """
        WITH %4$snow AS (SELECT %2$s AS ms),
        found AS (SELECT * FROM %1$s WHERE tenant = ? AND tool = ? AND idem_key = ?),
        ins AS (
          INSERT INTO %1$s (%3$s)
          SELECT ?, ?, ?, ?, 'IN_PROGRESS', ?, 1, now.ms, now.ms + ?, now.ms + ?, NULL, NULL, NULL
          FROM now%5$s WHERE NOT EXISTS (SELECT 1 FROM found)
          ON CONFLICT (tenant, tool, idem_key) DO NOTHING
          RETURNING *
        )
        """;
    this.readSql =
        claim.formatted(table, nowMs, ClaimRows.COLUMNS, "", "")
            + """
            SELECT ins.*, now.ms AS now_ms, TRUE AS inserted FROM ins, now
            UNION ALL
            SELECT found.*, now.ms AS now_ms, FALSE AS inserted FROM found, now
            """;
    // the setting is made before the INSERT reads its source row (it joins cfg), and put back in
    // the outer target list, evaluated on the row the INSERT or the read produced; the outer join
    // gives one row even when nothing was found, so the setting is always put back
    this.readNoWaitSql =
        claim.formatted(
                table,
                nowMs,
                ClaimRows.COLUMNS,
                "cfg AS MATERIALIZED (SELECT current_setting('lock_timeout') AS previous,"
                    + " set_config('lock_timeout', '1ms', true) AS applied),\n",
                ", cfg")
            + """
            , result AS (
              SELECT ins.*, TRUE AS inserted FROM ins
              UNION ALL
              SELECT found.*, FALSE AS inserted FROM found
            )
            SELECT result.*, now.ms AS now_ms,
              set_config('lock_timeout', cfg.previous, true) AS restored
            FROM cfg CROSS JOIN now LEFT JOIN result ON TRUE
            """;
    this.completeAndCommitSql =
        "WITH done AS ("
            + completeSql
            + " RETURNING 1)"
            + " SELECT CASE WHEN n = 1 THEN n ELSE CAST('"
            + NO_CLAIM_ROW
            + " ' || n AS bigint) END"
            + " FROM (SELECT count(*) AS n FROM done) c; COMMIT";
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

  /**
   * The completion and the {@code COMMIT}, sent together: an UPDATE that finds no row of this
   * attempt fails (a cast that cannot succeed, evaluated only then), so the {@code COMMIT} after it
   * is never carried out.
   */
  @Override
  boolean sendsCompletionWithCommit() {
    return true;
  }

  @Override
  boolean completeAndCommit(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(completeAndCommitSql)) {
      bindCompletion(ps, id, token, result, retention);
      ps.execute();
      while (ps.getMoreResults() || ps.getUpdateCount() != -1) {
        // the COMMIT's answer: read to the end, so that an error of it is raised here
      }
      return true;
    } catch (SQLException e) {
      if (INVALID_TEXT.equals(e.getSQLState())
          && e.getMessage() != null
          && e.getMessage().contains(NO_CLAIM_ROW)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Only an error of the statement's own work proves that nothing was committed: a data, integrity,
   * transaction-state, rollback, syntax or lock error, or a cancelled statement (classes 22, 23,
   * 25, 40, 42, 55, and 57014), each raised before the {@code COMMIT} ran, which then never runs.
   * Anything else leaves the commit unknown: a lost connection (class 08), no state at all, and the
   * server's own troubles (57P01 when the server is shut down while a {@code COMMIT} waits for a
   * synchronous standby comes after the transaction committed locally; class 53, 58, XX).
   */
  @Override
  boolean provesNotCommitted(SQLException e) {
    String state = e.getSQLState();
    if (state == null || state.length() != 5) {
      return false;
    }
    return switch (state.substring(0, 2)) {
      case "22", "23", "25", "40", "42", "55" -> true;
      default -> state.equals("57014");
    };
  }

  @Override
  boolean foldsLockWait() {
    return true;
  }

  @Override
  Read read(Connection c, ClaimRequest r, boolean latest, int timeoutSeconds, boolean noWait)
      throws SQLException {
    // under READ COMMITTED every statement sees what was committed before it began, inside a
    // transaction too; the INSERT waits for another transaction's uncommitted row of the key
    try (PreparedStatement ps = c.prepareStatement(noWait ? readNoWaitSql : readSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      int i = ClaimRows.bindKey(ps, 1, r.id());
      i = ClaimRows.bindKey(ps, i, r.id());
      ps.setString(i++, r.argsHash());
      ps.setString(i++, r.token().value());
      ps.setLong(i++, r.lease().toMillis());
      ps.setLong(i, r.retention().toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Read(null, 0, false, true);
        }
        ClaimRecord row = ClaimRows.readRow(rs);
        return new Read(row, rs.getLong("now_ms"), row != null && rs.getBoolean("inserted"), true);
      }
    }
  }

  /**
   * One {@code UPDATE .. RETURNING lease_token} over the rows it could lock at once ({@code FOR
   * UPDATE SKIP LOCKED}): a row that another transaction holds locked is skipped, not waited for,
   * so it cannot hold the other leases back. When fewer came back than were sent, a plain read of
   * the others (which waits for no lock) tells a skipped row still held, left undecided and tried
   * again, from one no longer held.
   */
  @Override
  ExtendedLeases extendMany(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds, long deadline)
      throws SQLException {
    Set<LeaseToken> extended = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(extendSkippingLockedSql(leases.size()))) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setLong(1, lease.toMillis());
      ps.setLong(2, lease.toMillis());
      bindLeases(ps, 3, leases);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          extended.add(new LeaseToken(rs.getString(1)));
        }
      }
    }
    if (extended.size() >= leases.size()) {
      return ExtendedLeases.of(extended);
    }
    List<HeldLease> others = new ArrayList<>();
    for (HeldLease held : leases) {
      if (!extended.contains(held.token())) {
        others.add(held);
      }
    }
    return new ExtendedLeases(extended, heldTokens(c, others, timeoutSeconds));
  }

  private String extendSkippingLockedSql(int n) {
    return extendSet
        + "(tenant, tool, idem_key) IN (SELECT tenant, tool, idem_key FROM "
        + table
        + " WHERE "
        + heldRows(n)
        + " FOR UPDATE SKIP LOCKED) RETURNING lease_token";
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

  /** Never called: the read tries the INSERT itself ({@link Read#insertTried}). */
  @Override
  boolean insert(Connection c, ClaimRequest r, long nowMs, int timeoutSeconds) {
    throw new IllegalStateException("PostgreSQL's read inserts the key itself");
  }

  @Override
  String purgeSql() {
    return purgeSql;
  }
}
