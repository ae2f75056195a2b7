package dev.mcpgate.jdbc;

import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * MariaDB and MySQL: the claim is one {@code INSERT ... ON DUPLICATE KEY UPDATE}, which holds the
 * row lock for its whole evaluation and never raises a duplicate-key error. Its assignments run
 * left to right and each sees the ones before, so the first assignment decides: it swaps in the
 * new lease token only when the key may be taken (expired row; or in progress or unknown with the
 * same arguments and an expired lease). Every later assignment changes its column only if the
 * token is now the new one (tokens are random, so that means "this statement took the key").
 * A second statement reads the row back; the token in it tells acquired from existing.
 */
final class MySqlFamilySql extends SqlDialect {

  MySqlFamilySql(String table) {
    super(table);
  }

  @Override
  String nowMs() {
    return "(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
  }

  private String claimSql() {
    String took = "lease_token = VALUES(lease_token)";
    return """
        INSERT INTO %1$s (%3$s)
        VALUES (?, ?, ?, ?, 'IN_PROGRESS', ?, 1, %2$s, %2$s + ?, %2$s + ?, NULL, NULL, NULL)
        ON DUPLICATE KEY UPDATE
          lease_token = IF(%5$s, VALUES(lease_token), lease_token),
          attempt = IF(%4$s, %6$s, attempt),
          args_hash = IF(%4$s, VALUES(args_hash), args_hash),
          state = IF(%4$s, 'IN_PROGRESS', state),
          created_at_ms = IF(%4$s, VALUES(created_at_ms), created_at_ms),
          lease_expires_at_ms = IF(%4$s, VALUES(lease_expires_at_ms), lease_expires_at_ms),
          expires_at_ms = IF(%4$s, VALUES(expires_at_ms), expires_at_ms),
          completed_at_ms = IF(%4$s, NULL, completed_at_ms),
          result_kind = IF(%4$s, NULL, result_kind),
          result = IF(%4$s, NULL, result)
        """.formatted(table, nowMs(), COLUMNS, took,
            takeoverAllowed("", nowMs(), "VALUES(args_hash)"), nextAttempt("", nowMs()));
  }

  @Override
  ClaimAttempt claim(Connection c, ClaimRequest r) throws SQLException {
    for (int round = 0; round < 5; round++) {
      try (PreparedStatement ps = c.prepareStatement(claimSql())) {
        bindClaim(ps, 1, r);
        ps.executeUpdate();
      }
      ClaimAttempt.Existing row = select(c, r.id());
      if (row != null) {
        return classify(row, r.token());
      }
      // released or purged between the two statements: claim again
    }
    throw new SQLException("claim of " + r.id() + " found neither a free key nor a row in 5 rounds");
  }

  @Override
  String purgeSql() {
    return "DELETE FROM " + table + " WHERE expires_at_ms <= " + nowMs()
        + " ORDER BY expires_at_ms LIMIT ?";
  }
}
