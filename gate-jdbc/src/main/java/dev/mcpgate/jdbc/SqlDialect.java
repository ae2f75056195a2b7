package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.Takeover;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The claim protocol every dialect shares, and the statements that do not differ between databases.
 * A claim goes round until one of these holds:
 *
 * <ol>
 *   <li>the dialect's {@linkplain #read read} finds no row at the store's clock, and its
 *       {@linkplain #insert insert} wins the primary key: acquired (attempt 1);
 *   <li>the row found may not be taken ({@link Takeover#allowed} is false): it is returned as
 *       existing, and nothing was written or locked: a replay, a conflict and an in-flight answer
 *       are read-only;
 *   <li>the row may be taken, and an UPDATE conditional on the token just read and on the rule
 *       itself changes it: acquired (a takeover, or attempt 1 over an expired row).
 * </ol>
 *
 * A lost race (a duplicate key, an UPDATE that matched nothing, a row the read could not see yet)
 * goes round again, so a row is never changed on the strength of a stale read, and a stale row is
 * never answered: one that may be taken is taken or read again. Statement texts are built once per
 * store, so drivers can cache them as prepared statements.
 */
abstract class SqlDialect {
  static final String COLUMNS =
      "tenant, tool, idem_key, args_hash, state, lease_token, attempt, created_at_ms,"
          + " lease_expires_at_ms, expires_at_ms, completed_at_ms, result_kind, result";
  static final String KEY = "tenant = ? AND tool = ? AND idem_key = ?";
  private static final int CLAIM_ROUNDS = 50;

  final String table;
  final String nowMs;
  private final String takeoverSql;
  private final String completeSql;
  private final String releaseSql;
  private final String extendSql;
  private final String markUnknownSql;
  private final String findSql;
  private final String nowSql;

  /**
   * @param table the checked table name
   * @param nowMs an SQL expression for the database clock in epoch milliseconds
   */
  SqlDialect(String table, String nowMs) {
    this.table = table;
    this.nowMs = nowMs;
    this.takeoverSql =
        "UPDATE "
            + table
            + " SET args_hash = ?, state = 'IN_PROGRESS',"
            + " lease_token = ?, attempt = ?, created_at_ms = ?, lease_expires_at_ms = ?,"
            + " expires_at_ms = ?, completed_at_ms = NULL, result_kind = NULL, result = NULL"
            + " WHERE "
            + KEY
            + " AND lease_token = ? AND "
            + takeoverAllowed("", "?", "?");
    this.completeSql =
        "UPDATE "
            + table
            + " SET state = 'COMPLETED', completed_at_ms = "
            + nowMs
            + ", expires_at_ms = "
            + nowMs
            + " + ?, result_kind = ?, result = ?"
            + " WHERE "
            + KEY
            + " AND lease_token = ? AND state <> 'COMPLETED'";
    this.releaseSql =
        "DELETE FROM " + table + " WHERE " + KEY + " AND lease_token = ? AND state <> 'COMPLETED'";
    this.extendSql =
        "UPDATE "
            + table
            + " SET lease_expires_at_ms = "
            + nowMs
            + " + ?,"
            + " expires_at_ms = GREATEST(expires_at_ms, "
            + nowMs
            + " + ?)"
            + " WHERE "
            + KEY
            + " AND lease_token = ? AND state = 'IN_PROGRESS'";
    this.markUnknownSql =
        "UPDATE "
            + table
            + " SET state = 'UNKNOWN', expires_at_ms = "
            + nowMs
            + " + ?"
            + " WHERE "
            + KEY
            + " AND lease_token = ? AND state = 'IN_PROGRESS'";
    this.findSql =
        "SELECT " + COLUMNS + ", " + nowMs + " AS now_ms FROM " + table + " WHERE " + KEY;
    this.nowSql = "SELECT " + nowMs;
  }

  /**
   * The SPI's one takeover rule ({@link Takeover#allowed}) as an SQL condition, in parentheses: a
   * claim at {@code now} with {@code hash} may write over the row.
   *
   * @param row the prefix of the row's columns ({@code "r."}, or {@code ""})
   * @param now an expression for the store clock in epoch milliseconds
   * @param hash an expression for the claim's argument hash
   */
  static String takeoverAllowed(String row, String now, String hash) {
    return "("
        + row
        + "expires_at_ms <= "
        + now
        + " OR ("
        + row
        + "state = 'IN_PROGRESS' AND "
        + row
        + "lease_expires_at_ms <= "
        + now
        + " AND "
        + row
        + "args_hash = "
        + hash
        + "))";
  }

  /**
   * What one read of the key found.
   *
   * @param row the row, or null when the read saw none
   * @param nowMs the store's clock at the read
   * @param inserted true when the read itself inserted the row (PostgreSQL): acquired
   * @param insertTried true when the read itself tried the insert of a free key (PostgreSQL, the
   *     MariaDB/MySQL claim procedure): no row and not inserted is a lost race, and the claim goes
   *     round; false when the {@linkplain #insert insert} comes next
   */
  record Read(ClaimRecord row, long nowMs, boolean inserted, boolean insertTried) {}

  /**
   * Reads the key's row and the store's clock in one statement (PostgreSQL, and MariaDB/MySQL
   * through the claim procedure, also insert the key when it is free).
   *
   * @param latest true when, inside a single-commit transaction, a race was lost: the read must see
   *     the row committed since the transaction's first read (and wait for an uncommitted one)
   * @param noWait true when the read must not wait for another transaction's uncommitted claim of
   *     the key; only asked of a dialect whose {@link #foldsLockWait} is true
   */
  abstract Read read(
      Connection c, ClaimRequest r, boolean latest, int timeoutSeconds, boolean noWait)
      throws SQLException;

  /**
   * @return true when {@link #read} itself can give up at once on another transaction's lock (the
   *     lock wait set and put back inside the claim's one statement); false when the lock wait is
   *     set and put back by statements of their own ({@link #noLockWait}, {@link #restoreLockWait})
   */
  boolean foldsLockWait() {
    return false;
  }

  /**
   * Inserts the claim's row, attempt 1, with times from {@code nowMs} (the store's clock, read a
   * moment ago).
   *
   * @return false when another attempt inserted the key first
   */
  abstract boolean insert(Connection c, ClaimRequest r, long nowMs, int timeoutSeconds)
      throws SQLException;

  /**
   * @return a DELETE of at most {@code ?} expired rows
   */
  abstract String purgeSql();

  /**
   * @return true when the exception only means that another attempt won the row (a duplicate key, a
   *     concurrent update): the claim goes round
   */
  boolean isLostRace(SQLException e) {
    return false;
  }

  /**
   * @return true when a statement gave up waiting for another transaction's lock: a query timeout
   *     (JDBC's own, PostgreSQL 57014, MariaDB 1969/3024), a lock wait timeout (MariaDB/MySQL 1205,
   *     H2 50200)
   */
  static boolean isTimeout(SQLException e) {
    int code = e.getErrorCode();
    return e instanceof SQLTimeoutException
        || "57014".equals(e.getSQLState())
        || "55P03".equals(e.getSQLState())
        || code == 1205
        || code == 1969
        || code == 3024
        || code == 50200;
  }

  /** Claims atomically; see {@link dev.mcpgate.core.spi.IdempotencyStore#claim}. */
  final ClaimAttempt claim(Connection c, ClaimRequest r) throws SQLException {
    return claim(c, r, false, 0, false);
  }

  /**
   * Claims inside the connection's open transaction (single-commit mode); a statement that waits
   * for another transaction's uncommitted claim gives up after {@code timeoutSeconds}.
   *
   * @throws SQLException for which {@link #isTimeout} is true, when the wait ran out
   */
  final ClaimAttempt claimInTransaction(Connection c, ClaimRequest r, int timeoutSeconds)
      throws SQLException {
    return claim(c, r, true, timeoutSeconds, false);
  }

  /**
   * Claims inside the connection's open transaction without waiting for another transaction's
   * uncommitted claim of the key (single-commit mode with a zero in-flight wait): the dialect's
   * lock wait is set to nothing (or its least) for the claim's statements, then put back.
   *
   * @throws SQLException for which {@link #isTimeout} is true, when the key was locked
   */
  final ClaimAttempt claimInTransactionWithoutWaiting(Connection c, ClaimRequest r)
      throws SQLException {
    if (foldsLockWait()) {
      return claim(c, r, true, 1, true);
    }
    return withoutLockWait(c, () -> claim(c, r, true, 1, false));
  }

  /** What runs while the lock wait is set to nothing. */
  private interface NoWaitWork<T> {
    T run() throws SQLException;
  }

  /** Runs {@code work} with the connection's lock wait set to nothing, then puts it back. */
  private <T> T withoutLockWait(Connection c, NoWaitWork<T> work) throws SQLException {
    String previous = noLockWait(c);
    T attempt;
    try {
      attempt = work.run();
    } catch (SQLException e) {
      if (restoresLockWaitAfterFailure()) {
        try {
          restoreLockWait(c, previous);
        } catch (SQLException restoring) {
          e.addSuppressed(restoring);
        }
      }
      throw e;
    }
    restoreLockWait(c, previous);
    return attempt;
  }

  /**
   * Makes the connection's next statements give up at once on a row lock another transaction holds.
   *
   * @return the previous setting, for {@link #restoreLockWait}
   */
  abstract String noLockWait(Connection c) throws SQLException;

  /** Puts back the lock wait that {@link #noLockWait} replaced. */
  abstract void restoreLockWait(Connection c, String previous) throws SQLException;

  /**
   * @return true when a failed claim leaves the connection able to run the restore (false on
   *     PostgreSQL, whose failed transaction runs nothing more and whose setting ends with it)
   */
  boolean restoresLockWaitAfterFailure() {
    return true;
  }

  /** Runs a statement that returns one value, and returns it. */
  static String queryOne(Connection c, String sql, String... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** Runs a statement that returns no rows. */
  static void run(Connection c, String sql) throws SQLException {
    try (java.sql.Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private ClaimAttempt claim(
      Connection c, ClaimRequest r, boolean inTransaction, int timeoutSeconds, boolean noWait)
      throws SQLException {
    for (int round = 0; round < CLAIM_ROUNDS; round++) {
      try {
        ClaimAttempt attempt = claimOnce(c, r, inTransaction && round > 0, timeoutSeconds, noWait);
        if (attempt != null) {
          return attempt;
        }
      } catch (SQLException e) {
        if (!isLostRace(e)) {
          throw e;
        }
      }
    }
    throw new SQLException("claim of " + r.id() + " lost " + CLAIM_ROUNDS + " races in a row");
  }

  /**
   * @return the claim's answer, or null when a race was lost and the claim goes round
   */
  private ClaimAttempt claimOnce(
      Connection c, ClaimRequest r, boolean latest, int timeoutSeconds, boolean noWait)
      throws SQLException {
    Read read = read(c, r, latest, timeoutSeconds, noWait);
    Instant now = Instant.ofEpochMilli(read.nowMs());
    if (read.inserted()) {
      return new ClaimAttempt.Acquired(read.row(), now);
    }
    if (read.row() == null) {
      if (read.insertTried()) {
        return null; // another attempt inserted the key first: read again
      }
      return insert(c, r, read.nowMs(), timeoutSeconds)
          ? new ClaimAttempt.Acquired(newRow(r, 1, read.nowMs()), now)
          : null;
    }
    if (!Takeover.allowed(read.row(), r.argsHash(), now)) {
      return new ClaimAttempt.Existing(read.row(), now);
    }
    int attempt = Takeover.nextAttempt(read.row(), now);
    LeaseToken readToken = read.row().token();
    // a takeover is rare: where the read set and put back the lock wait itself, the UPDATE gets
    // statements of its own for it, so that it does not wait on a racing takeover either
    boolean taken =
        noWait
            ? withoutLockWait(
                c, () -> takeOver(c, r, readToken, attempt, read.nowMs(), timeoutSeconds))
            : takeOver(c, r, readToken, attempt, read.nowMs(), timeoutSeconds);
    return taken ? new ClaimAttempt.Acquired(newRow(r, attempt, read.nowMs()), now) : null;
  }

  /** The row a claim writes: in progress, held by its token, times from the store's clock. */
  static ClaimRecord newRow(ClaimRequest r, int attempt, long nowMs) {
    return new ClaimRecord(
        r.id(),
        r.argsHash(),
        ClaimState.IN_PROGRESS,
        r.token(),
        attempt,
        Instant.ofEpochMilli(nowMs),
        Instant.ofEpochMilli(nowMs + r.lease().toMillis()),
        Instant.ofEpochMilli(nowMs + r.retention().toMillis()),
        null,
        null);
  }

  /**
   * Writes the claim over the row read, only if the row still holds {@code readToken} and may still
   * be taken at {@code nowMs}.
   */
  private boolean takeOver(
      Connection c,
      ClaimRequest r,
      LeaseToken readToken,
      int attempt,
      long nowMs,
      int timeoutSeconds)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(takeoverSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, r.argsHash());
      ps.setString(2, r.token().value());
      ps.setInt(3, attempt);
      ps.setLong(4, nowMs);
      ps.setLong(5, nowMs + r.lease().toMillis());
      ps.setLong(6, nowMs + r.retention().toMillis());
      int i = bindKey(ps, 7, r.id());
      ps.setString(i++, readToken.value());
      ps.setLong(i++, nowMs);
      ps.setLong(i++, nowMs);
      ps.setString(i, r.argsHash());
      return ps.executeUpdate() == 1;
    }
  }

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
    int i = bindKey(ps, 4, id);
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

  boolean extend(Connection c, ClaimId id, LeaseToken token, Duration lease) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(extendSql)) {
      ps.setLong(1, lease.toMillis());
      ps.setLong(2, lease.toMillis());
      int i = bindKey(ps, 3, id);
      ps.setString(i, token.value());
      return ps.executeUpdate() == 1;
    }
  }

  boolean markUnknown(Connection c, ClaimId id, LeaseToken token, Duration fence)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(markUnknownSql)) {
      ps.setLong(1, fence.toMillis());
      int i = bindKey(ps, 2, id);
      ps.setString(i, token.value());
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * The most leases one renewal statement extends; a longer list is split into statements of this
   * many (800 parameters, well under every driver's limit).
   */
  static final int LEASES_PER_STATEMENT = 200;

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
    return "UPDATE "
        + table
        + " SET lease_expires_at_ms = "
        + nowMs
        + " + ?,"
        + " expires_at_ms = GREATEST(expires_at_ms, "
        + nowMs
        + " + ?) WHERE "
        + heldRows(n);
  }

  /** Binds the parameters of {@link #heldRows}; @return the next parameter index */
  int bindLeases(PreparedStatement ps, int index, List<HeldLease> leases) throws SQLException {
    int i = index;
    for (HeldLease held : leases) {
      i = bindKey(ps, i, held.id());
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
   * @return the tokens whose leases were extended; nothing is left undecided
   */
  ExtendedLeases extendMany(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds)
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

  /**
   * Extends each lease by its own UPDATE, all sent as one JDBC batch: a statement that fails (a
   * lock wait that ran out) leaves its lease undecided and the others go on.
   */
  final ExtendedLeases extendEach(
      Connection c, List<HeldLease> leases, Duration lease, int timeoutSeconds)
      throws SQLException {
    int[] counts;
    try (PreparedStatement ps = c.prepareStatement(extendSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      for (HeldLease held : leases) {
        ps.setLong(1, lease.toMillis());
        ps.setLong(2, lease.toMillis());
        int i = bindKey(ps, 3, held.id());
        ps.setString(i, held.token().value());
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

  private static boolean updateHeld(Connection c, String sql, ClaimId id, LeaseToken token)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i = bindKey(ps, 1, id);
      ps.setString(i, token.value());
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * @return the row at (tenant, tool, key), or null
   */
  ClaimRecord find(Connection c, ClaimId id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(findSql)) {
      bindKey(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? readRow(rs) : null;
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

  static int bindKey(PreparedStatement ps, int index, ClaimId id) throws SQLException {
    ps.setString(index, id.tenant());
    ps.setString(index + 1, id.tool());
    ps.setString(index + 2, id.key());
    return index + 3;
  }

  /** Reads the row at the cursor (the {@link #COLUMNS}); null when its columns are null. */
  static ClaimRecord readRow(ResultSet rs) throws SQLException {
    String stateName = rs.getString("state");
    if (stateName == null) {
      return null;
    }
    ClaimState state = ClaimState.valueOf(stateName);
    String kind = rs.getString("result_kind");
    StoredResult result = null;
    if (state == ClaimState.COMPLETED && kind != null) {
      byte[] body = rs.getBytes("result");
      result = new StoredResult(StoredResult.Kind.valueOf(kind), body == null ? new byte[0] : body);
    }
    long completed = rs.getLong("completed_at_ms");
    Instant completedAt = rs.wasNull() ? null : Instant.ofEpochMilli(completed);
    return new ClaimRecord(
        new ClaimId(rs.getString("tenant"), rs.getString("tool"), rs.getString("idem_key")),
        rs.getString("args_hash"),
        state,
        new LeaseToken(rs.getString("lease_token")),
        rs.getInt("attempt"),
        Instant.ofEpochMilli(rs.getLong("created_at_ms")),
        Instant.ofEpochMilli(rs.getLong("lease_expires_at_ms")),
        Instant.ofEpochMilli(rs.getLong("expires_at_ms")),
        state == ClaimState.COMPLETED ? completedAt : null,
        result);
  }
}
