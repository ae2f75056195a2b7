package dev.mcpgate.jdbc;

import dev.mcpgate.core.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The claim on databases without an insert that reads an existing row back without locking it
 * (MariaDB/MySQL, H2): the read is a plain SELECT of the row and the store's clock (a consistent,
 * non-locking read), so a replay, a conflict or an in-flight answer is one read-only round trip; a
 * fresh claim is that SELECT, an INSERT that the primary key lets one racer win, and the
 * completion. A duplicate-key error only means another attempt won: go round.
 */
abstract class SelectThenInsertSql extends SqlDialect {
  private final String readSql;
  private final String readLatestSql;
  private final String insertSql;

  /**
   * @param lockingRead how a read inside a transaction that lost a race sees the latest committed
   *     row (and waits for an uncommitted one): a clause appended to the SELECT, or "" where each
   *     statement sees the latest committed data anyway (READ COMMITTED). The first read of a
   *     transaction is a plain one: its snapshot is current, and it takes no lock that two racing
   *     transactions could deadlock on.
   */
  SelectThenInsertSql(String table, String nowMs, String lockingRead) {
    super(table, nowMs);
    this.readSql =
        "SELECT n.now_ms, t.* FROM (SELECT "
            + nowMs
            + " AS now_ms) n LEFT JOIN "
            + table
            + " t ON t.tenant = ? AND t.tool = ? AND t.idem_key = ?";
    this.readLatestSql = readSql + lockingRead;
    this.insertSql =
        "INSERT INTO "
            + table
            + " ("
            + ClaimRows.COLUMNS
            + ") VALUES"
            + " (?, ?, ?, ?, 'IN_PROGRESS', ?, 1, ?, ?, ?, NULL, NULL, NULL)";
  }

  @Override
  Read read(Connection c, ClaimRequest r, boolean latest, int timeoutSeconds, boolean noWait)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(latest ? readLatestSql : readSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      ClaimRows.bindKey(ps, 1, r.id());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Read(ClaimRows.readRow(rs), rs.getLong("now_ms"), false, false);
      }
    }
  }

  @Override
  boolean insert(Connection c, ClaimRequest r, long nowMs, int timeoutSeconds) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insertSql)) {
      ps.setQueryTimeout(timeoutSeconds);
      int i = ClaimRows.bindKey(ps, 1, r.id());
      ps.setString(i++, r.argsHash());
      ps.setString(i++, r.token().value());
      ps.setLong(i++, nowMs);
      ps.setLong(i++, nowMs + r.lease().toMillis());
      ps.setLong(i, nowMs + r.retention().toMillis());
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      if (isLostRace(e)) {
        return false;
      }
      throw e;
    }
  }
}
