package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The statements on a claim already made, conditional on its lease token (complete, release, extend
 * one lease or many, mark unknown), and the reads, clock and purge of the table; what differs
 * between databases is overridden by the dialects. Statement texts are built once per store.
 */
abstract class LeaseSql {
  final String table;
  final String nowMs;
  final String completeSql;
  private final String releaseSql;

  /**
   * An UPDATE's start that extends a lease by the first {@code ?} and raises the expiry to the
   * second.
   */
  final String extendSet;

  final String extendSql;
  private final String markUnknownSql;

  /** A SELECT of the key's row with the store's clock as {@code now_ms}. */
  final String findSql;

  private final String nowSql;

  /**
   * @param table the checked table name
   * @param nowMs an SQL expression for the database clock in epoch milliseconds
   */
  LeaseSql(String table, String nowMs) {
    this.table = table;
    this.nowMs = nowMs;
    this.completeSql =
        "UPDATE "
            + table
            + " SET state = 'COMPLETED', completed_at_ms = "
            + nowMs
            + ", expires_at_ms = "
            + nowMs
            + " + ?, result_kind = ?, result = ?"
            + " WHERE "
            + ClaimRows.KEY
            + " AND lease_token = ? AND state <> 'COMPLETED'";
    this.releaseSql =
        "DELETE FROM "
            + table
            + " WHERE "
            + ClaimRows.KEY
            + " AND lease_token = ? AND state <> 'COMPLETED'";
    this.extendSet =
        "UPDATE "
            + table
            + " SET lease_expires_at_ms = "
            + nowMs
            + " + ?, expires_at_ms = GREATEST(expires_at_ms, "
            + nowMs
            + " + ?) WHERE ";
    this.extendSql = extendSet + ClaimRows.KEY + " AND lease_token = ? AND state = 'IN_PROGRESS'";
    this.markUnknownSql =
        "UPDATE "
            + table
            + " SET state = 'UNKNOWN', expires_at_ms = "
            + nowMs
            + " + ?"
            + " WHERE "
            + ClaimRows.KEY
            + " AND lease_token = ? AND state = 'IN_PROGRESS'";
    this.findSql =
        "SELECT "
            + ClaimRows.COLUMNS
            + ", "
            + nowMs
            + " AS now_ms FROM "
            + table
            + " WHERE "
            + ClaimRows.KEY;
    this.nowSql = "SELECT " + nowMs;
  }

  /**
   * Reads, once at setup, what the dialect needs to know of the server (nothing by default).
   *
   * @param c the setup's connection
   */
  void learn(Connection c) throws SQLException {}

  /**
   * @return a DELETE of at most {@code ?} expired rows
   */
  abstract String purgeSql();

  boolean complete(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(completeSql)) {
      bindCompletion(ps, id, token, result, retention);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * Binds a completion's parameters: the retention, the result's kind and body, the key, the token
   * (the order of {@code completeSql}, and of PostgreSQL's completion with the commit).
   */
  static void bindCompletion(
      PreparedStatement ps, ClaimId id, LeaseToken token, StoredResult result, Duration retention)
      throws SQLException {
    ps.setLong(1, retention.toMillis());
    ps.setString(2, result.kind().name());
    ps.setBytes(3, result.body());
    int i = ClaimRows.bindKey(ps, 4, id);
    ps.setString(i, token.value());
  }

  /**
   * @return true when {@link #completeAndCommit} sends the completion and the {@code COMMIT} in one
   *     round trip; false when the completion and the commit are sent one by one
   */
  boolean sendsCompletionWithCommit() {
    return false;
  }

  /**
   * Writes the completion and commits the connection's transaction in one round trip (only where
   * {@link #sendsCompletionWithCommit} is true).
   *
   * @return false when the completion found no row of this token: nothing was committed
   * @throws SQLException for which {@link #provesNotCommitted} says whether nothing was committed
   */
  boolean completeAndCommit(
      Connection c, ClaimId id, LeaseToken token, StoredResult result, Duration retention)
      throws SQLException {
    throw new UnsupportedOperationException("no completion sent with the commit");
  }

  /**
   * @return true when the failure of {@link #completeAndCommit} proves that nothing was committed;
   *     false when the commit may have been carried out (its answer was lost)
   */
  boolean provesNotCommitted(SQLException e) {
    return false;
  }

  boolean release(Connection c, ClaimId id, LeaseToken token) throws SQLException {
    return updateHeld(c, releaseSql, id, token);
  }

  /**
   * Extends one lease. An UPDATE that reports no row is read back: MariaDB/MySQL drivers with
   * {@code useAffectedRows=true} count only the rows a statement changed, and an extension in the
   * same millisecond as the last write sets the value the row already has. The token still holding
   * an in-progress row then proves the UPDATE found it (a token never comes back to a row it lost).
   */
  boolean extend(Connection c, ClaimId id, LeaseToken token, Duration lease) throws SQLException {
    return updateHeld(c, extendSql, id, token, lease.toMillis(), lease.toMillis())
        || !heldTokens(c, List.of(new HeldLease(id, token)), 0).isEmpty();
  }

  boolean markUnknown(Connection c, ClaimId id, LeaseToken token, Duration fence)
      throws SQLException {
    return updateHeld(c, markUnknownSql, id, token, fence.toMillis());
  }

  /**
   * The most leases one renewal statement extends; a longer list is split into statements of this
   * many (800 parameters, well under every driver's limit).
   */
  private static final int LEASES_PER_STATEMENT = 200;

  /**
   * Extends any number of leases by {@link #extendMany}, {@link #LEASES_PER_STATEMENT} at a time.
   *
   * @param deadline {@link System#nanoTime()} at the renewal try's deadline
   */
  final ExtendedLeases extendAll(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds, long deadline)
      throws SQLException {
    Set<LeaseToken> extended = new HashSet<>();
    Set<LeaseToken> undecided = new HashSet<>();
    for (int from = 0; from < leases.size(); from += LEASES_PER_STATEMENT) {
      List<HeldLease> chunk =
          leases.subList(from, Math.min(leases.size(), from + LEASES_PER_STATEMENT));
      ExtendedLeases answer = extendMany(c, chunk, lease, timeoutSeconds, deadline);
      extended.addAll(answer.extended());
      undecided.addAll(answer.undecided());
    }
    return new ExtendedLeases(extended, undecided);
  }

  /**
   * @param n how many (key, token) pairs; at least 1
   * @return a condition on the in-progress rows of {@code n} (tenant, tool, key, token) pairs, one
   *     row value per pair, which PostgreSQL and MariaDB/MySQL look up through the primary key
   *     (bound by {@link #bindLeases}; checked with EXPLAIN: a BitmapOr of primary-key scans, a
   *     range on PRIMARY)
   */
  String heldRows(int n) {
    return "state = 'IN_PROGRESS' AND (tenant, tool, idem_key, lease_token) IN ("
        + rowValues(n, "(?, ?, ?, ?)")
        + ")";
  }

  /**
   * @return {@code n} copies of {@code row}, separated by commas
   */
  static String rowValues(int n, String row) {
    StringBuilder b = new StringBuilder(n * (row.length() + 2));
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ", ").append(row);
    }
    return b.toString();
  }

  /**
   * @return an UPDATE that extends the leases of {@code n} pairs by the rule of {@link #extend}
   */
  final String extendManySql(int n) {
    return extendSet + heldRows(n);
  }

  /** Binds the parameters of {@link #heldRows}; @return the next parameter index */
  int bindLeases(PreparedStatement ps, int index, List<HeldLease> leases) throws SQLException {
    int i = index;
    for (HeldLease held : leases) {
      i = ClaimRows.bindKey(ps, i, held.id());
      ps.setString(i++, held.token().value());
    }
    return i;
  }

  /**
   * Statements the renewal connection runs once when it is opened: a bound on how long a renewal
   * waits for a row lock, where the dialect needs one (see {@link #extendMany}). None by default.
   *
   * @param within the renewal try's deadline
   */
  List<String> renewalSession(Duration within) {
    return List.of();
  }

  /**
   * Extends many leases, each by the rule of {@link #extend}, in one UPDATE; when it changed fewer
   * rows than it was given, one SELECT of the same rows says which tokens still hold an in-progress
   * row (the ones it extended: a row it extended cannot be taken over before its new lease runs
   * out, and a row it did not extend cannot come to be held by a token already issued). A row
   * locked by another transaction makes the UPDATE wait for it, up to the connection's deadline;
   * PostgreSQL and MariaDB/MySQL override this so that it cannot hold the other leases back.
   *
   * @param leases at most {@link #LEASES_PER_STATEMENT}, at least one
   * @param timeoutSeconds the statements' query timeout
   * @param deadline {@link System#nanoTime()} at the renewal try's deadline, for a dialect that may
   *     send more statements than one
   * @return the tokens whose leases were extended; nothing is left undecided
   */
  ExtendedLeases extendMany(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds, long deadline)
      throws SQLException {
    int updated;
    try (PreparedStatement ps = c.prepareStatement(extendManySql(leases.size()))) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setLong(1, lease.toMillis());
      ps.setLong(2, lease.toMillis());
      bindLeases(ps, 3, leases);
      updated = ps.executeUpdate();
    }
    Set<LeaseToken> extended = new HashSet<>();
    if (updated >= leases.size()) {
      leases.forEach(held -> extended.add(held.token()));
      return ExtendedLeases.of(extended);
    }
    if (updated == 0) {
      return ExtendedLeases.of(extended);
    }
    return ExtendedLeases.of(heldTokens(c, leases, timeoutSeconds));
  }

  /**
   * @param timeoutSeconds the read's query timeout; 0 for none
   * @return the tokens of {@code leases} that hold an in-progress row, by a plain read (which waits
   *     for no lock: a row another transaction has locked is read as last committed)
   */
  final Set<LeaseToken> heldTokens(Connection c, List<HeldLease> leases, int timeoutSeconds)
      throws SQLException {
    Set<LeaseToken> held = new HashSet<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lease_token FROM " + table + " WHERE " + heldRows(leases.size()))) {
      ps.setQueryTimeout(timeoutSeconds);
      bindLeases(ps, 1, leases);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          held.add(new LeaseToken(rs.getString(1)));
        }
      }
    }
    return held;
  }

  private static boolean updateHeld(
      Connection c, String sql, ClaimId id, LeaseToken token, long... first) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bindHeld(ps, id, token, first);
      return ps.executeUpdate() == 1;
    }
  }

  /** Binds the numbers {@code first}, then the key, then the token. */
  static void bindHeld(PreparedStatement ps, ClaimId id, LeaseToken token, long... first)
      throws SQLException {
    for (int i = 0; i < first.length; i++) {
      ps.setLong(i + 1, first[i]);
    }
    ps.setString(ClaimRows.bindKey(ps, first.length + 1, id), token.value());
  }

  /**
   * @return the row at (tenant, tool, key), or null
   */
  ClaimRecord find(Connection c, ClaimId id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(findSql)) {
      ClaimRows.bindKey(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? ClaimRows.readRow(rs) : null;
      }
    }
  }

  long now(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(nowSql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  int purge(Connection c, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(purgeSql())) {
      ps.setInt(1, limit);
      return ps.executeUpdate();
    }
  }
}
