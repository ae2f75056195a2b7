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
import java.util.Arrays;
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

  /** The database clock in epoch milliseconds. */
  static final String NOW_MS =
      "(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";

  private final MySqlFamilyPurge purge;
  private final MaxAllowedPacket packet = new MaxAllowedPacket();
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
        NOW_MS,
        // InnoDB's consistent reads keep the transaction's first snapshot (REPEATABLE READ):
        // inside a transaction, read the latest committed row, waiting for an uncommitted one
        " LOCK IN SHARE MODE");
    this.mariadb = mariadb;
    this.purge = new MySqlFamilyPurge(table, nowMs, mariadb);
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
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds, long deadline)
      throws SQLException {
    return extendEach(c, leases, lease, timeoutSeconds, deadline);
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

  /** The server's {@code max_allowed_packet} and the driver's way of sending bytes. */
  @Override
  void learn(Connection c) throws SQLException {
    packet.learn(c);
  }

  @Override
  boolean complete(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention)
      throws SQLException {
    packet.check(c, id, result);
    return super.complete(c, id, token, result, retention);
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
    packet.check(c, id, result); // before anything is sent: nothing committed
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

  /** See {@link MySqlFamilyPurge}: the expired rows read, then deleted with no lock wait. */
  @Override
  int purge(Connection c, int limit) throws SQLException {
    List<MySqlFamilyPurge.ExpiredRow> expired = purge.expired(c, limit);
    return expired.isEmpty() ? 0 : withoutLockWait(c, () -> purge.delete(c, expired));
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
    return purge.rowSql();
  }

  /**
   * Extends each lease by its own UPDATE, all sent as one JDBC batch: a statement that fails (a
   * lock wait that ran out) leaves its lease undecided and the others go on. A batch the driver
   * sends as one ({@code useBulkStmts=true} of MariaDB Connector/J) fails as a whole on one locked
   * row, telling no lease: its leases are then sent again one statement each ({@link #oneByOne}). A
   * statement that reports no row is read back (see {@link LeaseSql#extend}: {@code
   * useAffectedRows=true}).
   */
  private ExtendedLeases extendEach(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds, long deadline)
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
        if (failedAsAWhole(counts, leases.size())) {
          counts = oneByOne(ps, leases, counts, lease, deadline);
        }
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
      } else if (count >= 1) {
        extended.add(token);
      } else {
        // SUCCESS_NO_INFO: ran, changed an unknown number of rows (bulk batches); 0: with
        // useAffectedRows=true, also a row found and set to the value it had (same millisecond)
        uncounted.add(leases.get(i));
      }
    }
    if (!uncounted.isEmpty()) {
      // a statement that ran has extended its row exactly when the token still holds it
      extended.addAll(heldTokens(c, uncounted, timeoutSeconds));
    }
    return new ExtendedLeases(extended, undecided);
  }

  /**
   * @return true when a failed batch told nothing of its leases: fewer counts than statements, or
   *     every one of two or more failed (a bulk batch marks them all failed on one locked row)
   */
  private static boolean failedAsAWhole(int[] counts, int statements) {
    if (counts == null || counts.length < statements) {
      return true;
    }
    return statements > 1 && Arrays.stream(counts).allMatch(n -> n == Statement.EXECUTE_FAILED);
  }

  /**
   * Sends again, one UPDATE each, the leases a failed batch left untold, as long as the renewal
   * try's deadline is not reached: a locked row fails its own statement at once (the renewal
   * connection's lock wait) and only its lease stays undecided; a lease not sent in time too.
   *
   * @return the batch's counts, with those of the statements sent again
   */
  private static int[] oneByOne(
      PreparedStatement ps, List<HeldLease> leases, int[] batch, Duration lease, long deadline)
      throws SQLException {
    int[] counts = new int[leases.size()];
    Arrays.fill(counts, Statement.EXECUTE_FAILED);
    if (batch != null) {
      System.arraycopy(batch, 0, counts, 0, Math.min(batch.length, counts.length));
    }
    ps.clearBatch();
    for (int i = 0; i < counts.length && System.nanoTime() - deadline < 0; i++) {
      if (counts[i] != Statement.EXECUTE_FAILED) {
        continue; // told by the batch
      }
      HeldLease held = leases.get(i);
      bindHeld(ps, held.id(), held.token(), lease.toMillis(), lease.toMillis());
      try {
        counts[i] = ps.executeUpdate();
      } catch (SQLException e) {
        if (isConnectionLost(e)) {
          throw e;
        }
        // a lock wait that ran out: this lease stays undecided, the others go on
      }
    }
    return counts;
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
