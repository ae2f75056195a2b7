package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * MariaDB and MySQL. A claim in auto-commit mode is a consistent SELECT (InnoDB takes no lock for
 * it), then, when no row was found, a plain INSERT (see {@link SelectThenInsertSql}): a replay is
 * one round trip, a fresh claim two. Calling the table's claim procedure instead would make a fresh
 * claim one round trip, but it made every replay dearer (a {@code CALL} costs more than a plain
 * SELECT: 0.43x against 0.62x of a primary-key SELECT in {@code JdbcThroughput}, fresh calls no
 * faster), so it serves only single-commit mode with a zero wait, where it replaces five round
 * trips (the lock wait read, set and put back, the SELECT and the INSERT) with one, and the
 * completion procedure sends the completion with the {@code COMMIT}. Never {@code INSERT IGNORE},
 * which would turn a too-long value into a silent truncation, nor {@code ON DUPLICATE KEY UPDATE},
 * which locks the existing row even when it changes nothing.
 */
final class MySqlFamilySql extends SelectThenInsertSql {
  private static final int ER_DUP_ENTRY = 1062;
  private static final int ER_LOCK_DEADLOCK = 1213;

  /**
   * The most rows a MariaDB purge deletes in one statement. Measured here (10,000 rows,
   * auto-commit, the server's defaults): a statement of 50 rows took 1.3 ms and one of 100 2.3 ms,
   * deleting 11x and 12x the rows a second of a DELETE a row; one of 200 gained nothing and holds
   * its rows longer.
   */
  static final int PURGE_ROWS_PER_DELETE = 64;

  /**
   * The most key and token bytes one purge statement names: far below any server's {@code
   * max_allowed_packet} (at least 1 MB by default), however long the keys.
   */
  static final int PURGE_BYTES_PER_DELETE = 16 * 1024;

  /**
   * How long a purge statement of many rows may run before MariaDB stops and undoes it: it holds
   * each row it has deleted, and each row it named that no longer matches (taken over since the
   * purge's read), until it ends, and a lease behind such a row cannot be renewed meanwhile.
   */
  static final String PURGE_STATEMENT_SECONDS = "0.25";

  private final String purgeSql;
  private final String expiredSql;
  private static final String NO_CLAIM_ROW = "mcpgate: no claim row";
  private static final String NOT_COMMITTED = "mcpgate: not committed";

  private final String callSql;
  private final boolean mariadb;
  private final String completeSql;

  /**
   * @param claimProcedure true when the table's claim procedure exists: claims call it
   * @param mariadb true for MariaDB, whose InnoDB lock wait may be zero; MySQL's is at least 1 s
   */
  MySqlFamilySql(String table, boolean claimProcedure, boolean mariadb) {
    super(
        table,
        "(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
        // InnoDB's consistent reads keep the transaction's first snapshot (REPEATABLE READ):
        // inside a transaction, read the latest committed row, waiting for an uncommitted one
        " LOCK IN SHARE MODE");
    this.mariadb = mariadb;
    this.purgeSql =
        "DELETE FROM "
            + table
            + " WHERE expires_at_ms <= "
            + nowMs
            + " AND tenant = ? AND tool = ? AND idem_key = ? AND lease_token = ?";
    this.expiredSql =
        "SELECT tenant, tool, idem_key, lease_token FROM "
            + table
            + " WHERE expires_at_ms <= "
            + nowMs
            + " ORDER BY created_at_ms LIMIT ?";
    this.callSql =
        claimProcedure
            ? "CALL " + TableName.claimProcedureName(table) + "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
            : null;
    this.completeSql =
        claimProcedure
            ? "CALL " + TableName.completeProcedureName(table) + "(?, ?, ?, ?, ?, ?, ?)"
            : null;
  }

  /**
   * Each lease by its own UPDATE, in one batch ({@link #extendEach}), on a connection whose InnoDB
   * lock wait is bounded ({@link #renewalSession}): a row another transaction holds locked fails
   * its own statement and leaves only its lease undecided. InnoDB has no {@code SKIP LOCKED} for an
   * UPDATE, and one UPDATE of every lease would wait on that row with all of them.
   */
  @Override
  ExtendedLeases extendMany(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds)
      throws SQLException {
    return extendEach(c, leases, lease, timeoutSeconds);
  }

  /**
   * {@code innodb_lock_wait_timeout} for the renewal connection: none on MariaDB (0: a locked row
   * fails its statement at once, however many are locked); MySQL's least, 1 s, where each locked
   * row costs a second (a limit of MySQL, said in docs/stores.md).
   */
  @Override
  List<String> renewalSession(Duration within) {
    return List.of("SET SESSION innodb_lock_wait_timeout = " + (mariadb ? 0 : 1));
  }

  @Override
  boolean foldsLockWait() {
    return callSql != null;
  }

  @Override
  Read read(Connection c, ClaimRequest r, boolean latest, int timeoutSeconds, boolean noWait)
      throws SQLException {
    if (callSql == null || !noWait) {
      return super.read(c, r, latest, timeoutSeconds, noWait);
    }
    try (PreparedStatement ps = c.prepareStatement(callSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      int i = ClaimRows.bindKey(ps, 1, r.id());
      ps.setString(i++, r.argsHash());
      ps.setString(i++, r.token().value());
      ps.setLong(i++, r.lease().toMillis());
      ps.setLong(i++, r.retention().toMillis());
      ps.setBoolean(i++, latest);
      ps.setInt(i, noWait ? 0 : -1);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("the claim procedure of " + table + " returned no row");
        }
        long nowMs = rs.getLong("now_ms");
        if (rs.getBoolean("inserted")) {
          return new Read(ClaimRows.newRow(r, 1, nowMs), nowMs, true, true);
        }
        // no row and not inserted: a racing claim inserted the key first; read again
        return new Read(ClaimRows.readRow(rs), nowMs, false, true);
      }
    }
  }

  @Override
  boolean sendsCompletionWithCommit() {
    return completeSql != null;
  }

  /** One {@code CALL} of the table's completion procedure: the UPDATE, then the {@code COMMIT}. */
  @Override
  boolean completeAndCommit(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(completeSql)) {
      int i = ClaimRows.bindKey(ps, 1, id);
      ps.setString(i++, token.value());
      ps.setLong(i++, retention.toMillis());
      ps.setString(i++, result.kind().name());
      ps.setBytes(i, result.body());
      ps.execute();
      return true;
    } catch (SQLException e) {
      if (e.getMessage() != null && e.getMessage().contains(NO_CLAIM_ROW)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The procedure raises every failure before its {@code COMMIT} again with {@value #NOT_COMMITTED}
   * in front; any other failure may have come from the {@code COMMIT} itself.
   */
  @Override
  boolean provesNotCommitted(SQLException e) {
    return e.getMessage() != null
        && (e.getMessage().contains(NOT_COMMITTED) || e.getMessage().contains(NO_CLAIM_ROW));
  }

  /**
   * Purges without locking a live row and without waiting on any row: a consistent read (InnoDB
   * takes no lock for it) finds up to {@code limit} expired rows along the {@code created_at_ms}
   * index, then DELETEs naming each row by its primary key remove them, each row only if it still
   * holds the token read and is still expired, each DELETE auto-committed, with the session's lock
   * wait at its least (none on MariaDB, 1 s on MySQL) and put back after: a row another transaction
   * holds is left for a later purge, and no lock the purge takes outlives its statement, which no
   * pause of the purge's thread can lengthen. A DELETE with a range condition would lock every row
   * it scans, live ones too. The rows of a batch in one transaction would be held from its first
   * DELETE to its COMMIT, across the client's round trips (Connector/J writes a batch statement by
   * statement): a claim of a deleted expired key would wait on a paused purge ({@code
   * MariaDbPurgeBatchTest}).
   */
  @Override
  int purge(Connection c, int limit) throws SQLException {
    List<ExpiredRow> expired = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(expiredSql)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          expired.add(
              new ExpiredRow(rs.getBytes(1), rs.getBytes(2), rs.getBytes(3), rs.getBytes(4)));
        }
      }
    }
    if (expired.isEmpty()) {
      return 0;
    }
    return withoutLockWait(c, () -> mariadb ? deleteInGroups(c, expired) : deleteEach(c, expired));
  }

  /**
   * MariaDB: up to {@value #PURGE_ROWS_PER_DELETE} rows a DELETE, one commit for all of them. The
   * statement names every row by its whole primary key, and {@code FORCE INDEX (PRIMARY)} keeps it
   * on those points (on a small table the optimizer would rather scan, and lock, every row and
   * every gap), so it locks what a DELETE a row would, but until the statement ends: MariaDB stops
   * it after {@value #PURGE_STATEMENT_SECONDS} s. A held row fails the statement at once (no lock
   * wait), and a statement stopped or chosen as a deadlock's victim is undone whole; its rows then
   * go one at a time. (A statement stopped just after its commit is counted as none: its rows are
   * gone when they go one at a time.) Groups count a power of two rows, so that a connection
   * prepares at most seven texts, and name at most {@value #PURGE_BYTES_PER_DELETE} bytes. Not on
   * MySQL: it can neither stop a DELETE after a time nor wait less than 1 s for a lock, during
   * which the statement would hold the rows it had deleted.
   */
  private int deleteInGroups(Connection c, List<ExpiredRow> expired) throws SQLException {
    int deleted = 0;
    int from = 0;
    while (from < expired.size()) {
      List<ExpiredRow> group = expired.subList(from, from + groupSize(expired, from));
      from += group.size();
      try (PreparedStatement ps = c.prepareStatement(groupPurgeSql(group.size()))) {
        int i = 1;
        for (ExpiredRow row : group) {
          i = row.bind(ps, i);
        }
        deleted += ps.executeUpdate();
      } catch (SQLException held) {
        if (isConnectionLost(held)
            || !(isTimeout(held) || held.getErrorCode() == ER_LOCK_DEADLOCK)) {
          throw held;
        }
        deleted += deleteEach(c, group);
      }
    }
    return deleted;
  }

  /**
   * The rows the next statement takes from {@code from}: the largest power of two that the rows
   * left, {@value #PURGE_ROWS_PER_DELETE} and {@value #PURGE_BYTES_PER_DELETE} bytes allow (one row
   * at least).
   */
  private static int groupSize(List<ExpiredRow> expired, int from) {
    int rows = Integer.highestOneBit(Math.min(PURGE_ROWS_PER_DELETE, expired.size() - from));
    int bytes = 0;
    for (int i = 0; i < rows; i++) {
      bytes += expired.get(from + i).bytes();
      if (bytes > PURGE_BYTES_PER_DELETE) {
        return Math.max(1, Integer.highestOneBit(i));
      }
    }
    return rows;
  }

  /** The DELETE of {@code rows} expired rows named by primary key and token, on that key alone. */
  String groupPurgeSql(int rows) {
    StringBuilder sql =
        new StringBuilder("SET STATEMENT max_statement_time = ")
            .append(PURGE_STATEMENT_SECONDS)
            .append(" FOR DELETE p FROM ")
            .append(table)
            .append(" AS p FORCE INDEX (PRIMARY) WHERE p.expires_at_ms <= ")
            .append(nowMs)
            .append(" AND (");
    for (int i = 0; i < rows; i++) {
      sql.append(i == 0 ? "" : " OR ")
          .append("(p.tenant = ? AND p.tool = ? AND p.idem_key = ? AND p.lease_token = ?)");
    }
    return sql.append(')').toString();
  }

  /** Deletes each row in a commit of its own; a row another transaction holds is skipped. */
  private int deleteEach(Connection c, List<ExpiredRow> expired) throws SQLException {
    int deleted = 0;
    try (PreparedStatement ps = c.prepareStatement(purgeSql)) {
      for (ExpiredRow row : expired) {
        row.bind(ps, 1);
        try {
          // one at a time, not a JDBC batch: a driver's batch may stop at a held row, or count
          // none of its statements when one failed (server-side or bulk statements)
          deleted += ps.executeUpdate();
        } catch (SQLException held) {
          if (isConnectionLost(held) || !isTimeout(held)) {
            throw held;
          }
        }
      }
    }
    return deleted;
  }

  /** An expired row as the purge's read found it: its primary key and the token it held. */
  private record ExpiredRow(byte[] tenant, byte[] tool, byte[] key, byte[] token) {
    /** The bytes a statement names it by. */
    int bytes() {
      return tenant.length + tool.length + key.length + token.length;
    }

    /** Binds the key and the token from {@code index}; returns the next index. */
    int bind(PreparedStatement ps, int index) throws SQLException {
      ps.setBytes(index, tenant);
      ps.setBytes(index + 1, tool);
      ps.setBytes(index + 2, key);
      ps.setBytes(index + 3, token);
      return index + 4;
    }
  }

  @Override
  boolean isLostRace(SQLException e) {
    // a deadlock between two transactions that claim the same absent key rolls one back
    return e.getErrorCode() == ER_DUP_ENTRY || e.getErrorCode() == ER_LOCK_DEADLOCK;
  }

  /**
   * {@code innodb_lock_wait_timeout} 0 for the session until restored: MariaDB gives up at once
   * (error 1205); MySQL accepts no less than 1 s and waits that long.
   */
  @Override
  String noLockWait(Connection c) throws SQLException {
    String previous = queryOne(c, "SELECT @@SESSION.innodb_lock_wait_timeout");
    run(c, "SET SESSION innodb_lock_wait_timeout = 0");
    return previous;
  }

  @Override
  void restoreLockWait(Connection c, String previous) throws SQLException {
    run(c, "SET SESSION innodb_lock_wait_timeout = " + Long.parseLong(previous));
  }

  @Override
  String purgeSql() {
    return purgeSql;
  }

  /**
   * Extends each lease by its own UPDATE, all sent as one JDBC batch: a statement that fails (a
   * lock wait that ran out) leaves its lease undecided and the others go on.
   */
  private ExtendedLeases extendEach(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds)
      throws SQLException {
    int[] counts;
    try (PreparedStatement ps = c.prepareStatement(extendSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      for (HeldLease held : leases) {
        bindHeld(ps, held.id(), held.token(), lease.toMillis(), lease.toMillis());
        ps.addBatch();
      }
      try {
        counts = ps.executeBatch();
      } catch (java.sql.BatchUpdateException partly) {
        if (isConnectionLost(partly)) {
          throw partly;
        }
        counts = partly.getUpdateCounts();
      }
    }
    Set<LeaseToken> extended = new HashSet<>();
    Set<LeaseToken> undecided = new HashSet<>();
    List<HeldLease> uncounted = new ArrayList<>();
    for (int i = 0; i < leases.size(); i++) {
      LeaseToken token = leases.get(i).token();
      int count = counts == null || i >= counts.length ? Statement.EXECUTE_FAILED : counts[i];
      if (count == Statement.EXECUTE_FAILED) {
        undecided.add(token);
      } else if (count == Statement.SUCCESS_NO_INFO) {
        uncounted.add(leases.get(i)); // ran, changed an unknown number of rows (bulk batches)
      } else if (count >= 1) {
        extended.add(token);
      }
    }
    if (!uncounted.isEmpty()) {
      // a statement that ran has extended its row exactly when the token still holds it
      extended.addAll(heldTokens(c, uncounted, timeoutSeconds));
    }
    return new ExtendedLeases(extended, undecided);
  }

  /**
   * @return true when {@code e} says the connection itself failed (SQL state class 08): the whole
   *     call fails, and the connection is not used again
   */
  static boolean isConnectionLost(SQLException e) {
    String state = e.getSQLState();
    return state == null || state.startsWith("08");
  }
}
