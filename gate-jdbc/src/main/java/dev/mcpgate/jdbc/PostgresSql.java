package dev.mcpgate.jdbc;

import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * PostgreSQL: the claim is one statement. The INSERT takes the key when there is no row; on a
 * conflict, DO UPDATE ... WHERE takes it over only when the row has expired, or when it is in
 * progress (or unknown) with the same arguments and an expired lease. A row neither inserted nor
 * updated is read back by the second half of the same statement, so a replay costs one round
 * trip. No duplicate-key error is ever raised (which would abort a surrounding transaction).
 */
final class PostgresSql extends SqlDialect {

  PostgresSql(String table) {
    super(table);
  }

  @Override
  String nowMs() {
    return "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint";
  }

  private String claimSql() {
    return """
        WITH now AS (SELECT %2$s AS ms),
        claimed AS (
          INSERT INTO %1$s AS r (%3$s)
          SELECT ?, ?, ?, ?, 'IN_PROGRESS', ?, 1, now.ms, now.ms + ?, now.ms + ?, NULL, NULL, NULL
          FROM now
          ON CONFLICT (tenant, tool, idem_key) DO UPDATE SET
            args_hash = EXCLUDED.args_hash,
            state = 'IN_PROGRESS',
            lease_token = EXCLUDED.lease_token,
            attempt = %4$s,
            created_at_ms = EXCLUDED.created_at_ms,
            lease_expires_at_ms = EXCLUDED.lease_expires_at_ms,
            expires_at_ms = EXCLUDED.expires_at_ms,
            completed_at_ms = NULL,
            result_kind = NULL,
            result = NULL
          WHERE %5$s
          RETURNING r.*
        )
        SELECT claimed.*, now.ms AS now_ms FROM claimed, now
        UNION ALL
        SELECT t.*, now.ms AS now_ms FROM %1$s t, now
        WHERE t.tenant = ? AND t.tool = ? AND t.idem_key = ?
          AND NOT EXISTS (SELECT 1 FROM claimed)
        """.formatted(table, nowMs(), COLUMNS,
            nextAttempt("r.", "EXCLUDED.created_at_ms"),
            takeoverAllowed("r.", "EXCLUDED.created_at_ms", "EXCLUDED.args_hash"));
  }

  @Override
  ClaimAttempt claim(Connection c, ClaimRequest r) throws SQLException {
    // The read-back half sees the statement's snapshot: a row committed by a racing claim after
    // the snapshot was taken blocks our INSERT yet is invisible to the SELECT. Then nothing comes
    // back, and a second run of the statement (with a new snapshot) sees it.
    for (int round = 0; round < 5; round++) {
      try (PreparedStatement ps = c.prepareStatement(claimSql())) {
        bindKey(ps, bindClaim(ps, 1, r), r.id());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return classify(new ClaimAttempt.Existing(readRow(rs),
                Instant.ofEpochMilli(rs.getLong("now_ms"))), r.token());
          }
        }
      }
    }
    throw new SQLException("claim of " + r.id() + " found neither a free key nor a row in 5 rounds");
  }

  @Override
  String purgeSql() {
    return "DELETE FROM " + table + " WHERE expires_at_ms <= " + nowMs()
        + " AND (tenant, tool, idem_key) IN (SELECT tenant, tool, idem_key FROM " + table
        + " WHERE expires_at_ms <= " + nowMs() + " ORDER BY expires_at_ms LIMIT ?"
        + " FOR UPDATE SKIP LOCKED)";
  }
}
