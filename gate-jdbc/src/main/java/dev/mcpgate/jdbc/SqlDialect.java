package dev.mcpgate.jdbc;

import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.Takeover;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Instant;

/**
 * The claim protocol every dialect shares (the statements on a claim already made are {@link
 * LeaseSql}'s). A claim goes round until one of these holds:
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
abstract class SqlDialect extends LeaseSql {
  private static final int CLAIM_ROUNDS = 50;
  private final String takeoverSql;

  /**
   * @param table the checked table name
   * @param nowMs an SQL expression for the database clock in epoch milliseconds
   */
  SqlDialect(String table, String nowMs) {
    super(table, nowMs);
    this.takeoverSql =
        "UPDATE "
            + table
            + " SET args_hash = ?, state = 'IN_PROGRESS',"
            + " lease_token = ?, attempt = ?, created_at_ms = ?, lease_expires_at_ms = ?,"
            + " expires_at_ms = ?, completed_at_ms = NULL, result_kind = NULL, result = NULL"
            + " WHERE "
            + ClaimRows.KEY
            + " AND lease_token = ? AND "
            + takeoverAllowed("", "?", "?");
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

  /** Work on a connection that may fail with the database's exception. */
  interface SqlWork<T> {
    T run() throws SQLException;
  }

  /** A statement that puts back a session setting. */
  interface SqlRestore {
    void run() throws SQLException;
  }

  /** Runs {@code work} with the connection's lock wait set to nothing, then puts it back. */
  final <T> T withoutLockWait(Connection c, SqlWork<T> work) throws SQLException {
    String previous = noLockWait(c);
    return thenPutBack(work, () -> restoreLockWait(c, previous), restoresLockWaitAfterFailure());
  }

  /**
   * Runs {@code work}, then {@code restore}; after a failure of any kind too when {@code
   * afterFailure}, whose own failure is then added to the work's as suppressed, never thrown in its
   * place.
   */
  static <T> T thenPutBack(SqlWork<T> work, SqlRestore restore, boolean afterFailure)
      throws SQLException {
    T done;
    try {
      done = work.run();
    } catch (SQLException | RuntimeException | Error e) {
      if (afterFailure) {
        try {
          restore.run();
        } catch (SQLException restoring) {
          e.addSuppressed(restoring);
        }
      }
      throw e;
    }
    restore.run();
    return done;
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
    // each round read no row for the key, then its INSERT met a duplicate key: the table's key
    // compares otherwise than the read (ClaimsTableIdentityReviewTest), or, far less likely, as
    // many claims of this key came and went between a read and an insert
    throw new SQLException(
        "claim of "
            + r.id()
            + " lost "
            + CLAIM_ROUNDS
            + " races in a row: each time no row was read for the key and its INSERT met a"
            + " duplicate key, so the table or connection most likely does not keep tenant, tool"
            + " and key as sent (a case- or space-insensitive collation, citext key columns, a"
            + " prefix primary key; docs/stores.md, Schema)");
  }

  /**
   * @return the claim's answer, or null when a race was lost and the claim goes round
   */
  private ClaimAttempt claimOnce(
      Connection c, ClaimRequest r, boolean latest, int timeoutSeconds, boolean noWait)
      throws SQLException {
    if (r.replacing() != null) {
      return replace(c, r, timeoutSeconds, noWait);
    }
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
          ? new ClaimAttempt.Acquired(ClaimRows.newRow(r, 1, read.nowMs()), now)
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
    // the row taken over is named as the database holds it: a table that compares keys without
    // case or trailing spaces may have found another key's row, which the gate then refuses
    return taken
        ? new ClaimAttempt.Acquired(
            ClaimRows.newRow(read.row().id(), r, attempt, read.nowMs()), now)
        : null;
  }

  /**
   * A claim replacing a token: the row read without inserting a free key, then the takeover, which
   * writes only while the row still holds that token and may be taken.
   *
   * @return null when the row changed between the read and the takeover: the claim goes round
   */
  private ClaimAttempt replace(Connection c, ClaimRequest r, int timeoutSeconds, boolean noWait)
      throws SQLException {
    ClaimRecord row = null;
    long nowMs;
    try (PreparedStatement ps = c.prepareStatement(findSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      ClaimRows.bindKey(ps, 1, r.id());
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          row = ClaimRows.readRow(rs);
        }
        nowMs = row == null ? now(c) : rs.getLong("now_ms");
      }
    }
    Instant now = Instant.ofEpochMilli(nowMs);
    if (row == null) {
      return new ClaimAttempt.Absent(now);
    }
    if (!Takeover.allowed(row, r, now)) {
      return new ClaimAttempt.Existing(row, now);
    }
    int attempt = Takeover.nextAttempt(row, now);
    SqlWork<Boolean> takeOver = () -> takeOver(c, r, r.replacing(), attempt, nowMs, timeoutSeconds);
    boolean taken = noWait ? withoutLockWait(c, takeOver) : takeOver.run();
    return taken
        ? new ClaimAttempt.Acquired(ClaimRows.newRow(row.id(), r, attempt, nowMs), now)
        : null;
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
      int i = ClaimRows.bindKey(ps, 7, r.id());
      ps.setString(i++, readToken.value());
      ps.setLong(i++, nowMs);
      ps.setLong(i++, nowMs);
      ps.setString(i, r.argsHash());
      return ps.executeUpdate() == 1;
    }
  }
}
