package dev.mcpgate.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The purge of a MariaDB or MySQL claims table, which locks no live row it does not name and waits
 * on no row. A consistent read (InnoDB takes no lock for it) finds the oldest expired rows along
 * the {@code created_at_ms} index; then DELETEs naming each row by its primary key remove each only
 * if it still holds the token read and is still expired, each DELETE auto-committed, with the
 * session's lock wait at its least (none on MariaDB, 1 s on MySQL; the caller sets it): a row
 * another transaction holds is left for a later purge, and no lock the purge takes outlives its
 * statement, which no pause of the purge's thread can lengthen. A DELETE with a range condition
 * would lock every row it scans, live ones too. The rows of a batch in one transaction would be
 * held from its first DELETE to its COMMIT, across the client's round trips (Connector/J writes a
 * batch statement by statement): a claim of a deleted expired key would wait on a paused purge
 * ({@code MariaDbPurgeBatchTest}).
 */
final class MySqlFamilyPurge {
  /**
   * The most rows a MariaDB purge deletes in one statement. Measured here (10,000 rows,
   * auto-commit, the server's defaults): a statement of 50 rows took 1.3 ms and one of 100 2.3 ms,
   * deleting 11x and 12x the rows a second of a DELETE a row; one of 200 gained nothing and holds
   * its rows longer.
   */
  static final int ROWS_PER_DELETE = 64;

  /**
   * The most key and token bytes one purge statement names: far below any server's {@code
   * max_allowed_packet} (at least 1 MB by default), however long the keys.
   */
  static final int BYTES_PER_DELETE = 16 * 1024;

  /**
   * How long a purge statement of many rows may run before MariaDB stops and undoes it: it holds
   * each row it has deleted until it ends, and a zero-wait call of such a key is refused as in
   * flight meanwhile. A statement of 64 rows takes about 2 ms here; one stopped goes a row at a
   * time.
   */
  static final String STATEMENT_SECONDS = "0.05";

  private final String table;
  private final String nowMs;
  private final boolean mariadb;
  private final String rowSql;
  private final String expiredSql;

  /**
   * @param table the checked table name
   * @param nowMs an SQL expression for the database clock in epoch milliseconds
   * @param mariadb true for MariaDB, which deletes many rows a statement
   */
  MySqlFamilyPurge(String table, String nowMs, boolean mariadb) {
    this.table = table;
    this.nowMs = nowMs;
    this.mariadb = mariadb;
    this.rowSql =
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
  }

  /**
   * The expired rows, oldest first, by a consistent read: InnoDB takes no lock for it.
   *
   * @param limit the most rows read
   */
  List<ExpiredRow> expired(Connection c, int limit) throws SQLException {
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
    return expired;
  }

  /**
   * Deletes the rows that still hold the token read and are still expired; a row another
   * transaction holds is skipped. The session's lock wait must be at its least.
   *
   * @return the rows deleted
   */
  int delete(Connection c, List<ExpiredRow> expired) throws SQLException {
    if (!mariadb) {
      return deleteEach(c, expired);
    }
    if ("STATEMENT".equalsIgnoreCase(SqlDialect.queryOne(c, "SELECT @@SESSION.binlog_format"))) {
      // InnoDB refuses a write under READ COMMITTED that the binary log would log as a statement
      return deleteEach(c, expired);
    }
    // set by SQL, not through JDBC: a pool that sees a JDBC change puts its own default back on
    // return (the driver's pool: REPEATABLE READ), not what the session had
    String isolation = isolationLevel(c.getTransactionIsolation());
    SqlDialect.run(c, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    return SqlDialect.thenPutBack(
        () -> deleteInGroups(c, expired),
        () -> SqlDialect.run(c, "SET SESSION TRANSACTION ISOLATION LEVEL " + isolation),
        true);
  }

  /** The SQL name of a JDBC isolation level. */
  private static String isolationLevel(int jdbc) throws SQLException {
    return switch (jdbc) {
      case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
      case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
      case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
      case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
      default -> throw new SQLException("unknown transaction isolation " + jdbc);
    };
  }

  /** The DELETE of one expired row by its primary key and token. */
  String rowSql() {
    return rowSql;
  }

  /**
   * MariaDB: up to {@value #ROWS_PER_DELETE} rows a DELETE, one commit for all of them, under READ
   * COMMITTED. The statement names every row by its whole primary key, and {@code FORCE INDEX
   * (PRIMARY)} keeps it on those points (on a small table the optimizer would rather scan, and
   * lock, every row and every gap). Under READ COMMITTED it takes no gap lock, and lets go of a
   * named row that no longer matches (taken over or renewed since the read: a live lease, whose
   * renewals must not wait) as soon as it has looked at it; it holds the rows it deleted until it
   * ends, which MariaDB makes within {@value #STATEMENT_SECONDS} s. A held row fails the statement
   * at once (no lock wait), and a statement stopped (1969) or failed on a lock (1205) is undone
   * whole; its rows then go one at a time. It is never in a deadlock: it never waits, so it closes
   * no cycle (another transaction that waits on one of its rows gets it once the statement ends or
   * is undone; a statement that asks for a row that transaction holds fails at once with 1205:
   * {@code MariaDbPurgeGroup2ReviewTest}). Groups count a power of two rows, so that a connection
   * prepares at most seven texts, and name at most {@value #BYTES_PER_DELETE} bytes. Not on MySQL:
   * it can neither stop a DELETE after a time nor wait less than 1 s for a lock, during which the
   * statement would hold the rows it had deleted. Not when the binary log logs statements (READ
   * COMMITTED refused).
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
        if (!SqlDialect.isTimeout(held)) {
          throw held;
        }
        // a lost connection fails the first of these, which deleteEach throws on
        deleted += deleteEach(c, group);
      }
    }
    return deleted;
  }

  /**
   * The rows the next statement takes from {@code from}: the largest power of two that the rows
   * left, {@value #ROWS_PER_DELETE} and {@value #BYTES_PER_DELETE} bytes allow (one row at least).
   */
  private static int groupSize(List<ExpiredRow> expired, int from) {
    int rows = Integer.highestOneBit(Math.min(ROWS_PER_DELETE, expired.size() - from));
    int bytes = 0;
    for (int i = 0; i < rows; i++) {
      bytes += expired.get(from + i).bytes();
      if (bytes > BYTES_PER_DELETE) {
        return Math.max(1, Integer.highestOneBit(i));
      }
    }
    return rows;
  }

  /** The DELETE of {@code rows} expired rows named by primary key and token, on that key alone. */
  String groupPurgeSql(int rows) {
    StringBuilder sql =
        new StringBuilder("SET STATEMENT max_statement_time = ")
            .append(STATEMENT_SECONDS)
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
    try (PreparedStatement ps = c.prepareStatement(rowSql)) {
      for (ExpiredRow row : expired) {
        row.bind(ps, 1);
        try {
          // one at a time, not a JDBC batch: a driver's batch may stop at a held row, or count
          // none of its statements when one failed (server-side or bulk statements)
          deleted += ps.executeUpdate();
        } catch (SQLException held) {
          if (MySqlFamilySql.isConnectionLost(held) || !SqlDialect.isTimeout(held)) {
            throw held;
          }
        }
      }
    }
    return deleted;
  }

  /** An expired row as the purge's read found it: its primary key and the token it held. */
  record ExpiredRow(byte[] tenant, byte[] tool, byte[] key, byte[] token) {
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
}
