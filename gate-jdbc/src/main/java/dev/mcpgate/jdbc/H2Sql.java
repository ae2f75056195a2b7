package dev.mcpgate.jdbc;

import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.Takeover;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * H2 has no upsert that is atomic under concurrency (its MERGE can fail with "concurrent
 * update"), so the claim is an optimistic compare-and-set: read the row; if there is none,
 * INSERT (the primary key lets one racer win, the others get a duplicate key and go round
 * again); if it may be taken over, UPDATE it on the condition that it still holds the token just
 * read and still may be taken (zero rows updated means another attempt won: go round again).
 * The row is never changed on the strength of a stale read.
 */
final class H2Sql extends SqlDialect {
  private static final int ROUNDS = 50;

  H2Sql(String table) {
    super(table);
  }

  @Override
  String nowMs() {
    return "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";
  }

  private String insertSql() {
    return "INSERT INTO " + table + " (" + COLUMNS + ") SELECT ?, ?, ?, ?, 'IN_PROGRESS', ?, 1,"
        + " n, n + ?, n + ?, NULL, NULL, NULL FROM (SELECT " + nowMs() + " AS n) AS now";
  }

  private String takeoverSql() {
    String now = nowMs();
    return "UPDATE " + table + " SET args_hash = ?, state = 'IN_PROGRESS', lease_token = ?,"
        + " attempt = " + nextAttempt("", now) + ","
        + " created_at_ms = " + now + ", lease_expires_at_ms = " + now + " + ?,"
        + " expires_at_ms = " + now + " + ?, completed_at_ms = NULL, result_kind = NULL,"
        + " result = NULL"
        + " WHERE " + KEY + " AND lease_token = ?"
        + " AND " + takeoverAllowed("", now, "?");
  }

  @Override
  ClaimAttempt claim(Connection c, ClaimRequest r) throws SQLException {
    for (int round = 0; round < ROUNDS; round++) {
      ClaimAttempt.Existing current = select(c, r.id());
      try {
        if (current == null) {
          try (PreparedStatement ps = c.prepareStatement(insertSql())) {
            bindClaim(ps, 1, r);
            ps.executeUpdate();
          }
        } else if (Takeover.allowed(current.record(), r.argsHash(), current.storeNow())) {
          try (PreparedStatement ps = c.prepareStatement(takeoverSql())) {
            ps.setString(1, r.argsHash());
            ps.setString(2, r.token().value());
            ps.setLong(3, r.lease().toMillis());
            ps.setLong(4, r.retention().toMillis());
            int i = bindKey(ps, 5, r.id());
            ps.setString(i++, current.record().token().value());
            ps.setString(i, r.argsHash());
            if (ps.executeUpdate() == 0) {
              continue;
            }
          }
        } else {
          return current;
        }
      } catch (SQLException e) {
        if (isLostRace(e)) {
          continue;
        }
        throw e;
      }
      ClaimAttempt.Existing after = select(c, r.id());
      if (after != null) {
        return classify(after, r.token());
      }
    }
    throw new SQLException("claim of " + r.id() + " lost " + ROUNDS + " races in a row");
  }

  /** Duplicate key (23505), or H2's "concurrent update" (90131): another attempt won the row. */
  private static boolean isLostRace(SQLException e) {
    return "23505".equals(e.getSQLState()) || e.getErrorCode() == 90131;
  }

  @Override
  String purgeSql() {
    return "DELETE FROM " + table + " WHERE expires_at_ms <= " + nowMs() + " FETCH FIRST ? ROWS ONLY";
  }
}
