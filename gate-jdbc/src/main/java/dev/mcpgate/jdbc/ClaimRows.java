package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** The claims table's row on every dialect: its columns, its key's parameters, a row read back. */
final class ClaimRows {
  static final String COLUMNS =
      "tenant, tool, idem_key, args_hash, state, lease_token, attempt, created_at_ms,"
          + " lease_expires_at_ms, expires_at_ms, completed_at_ms, result_kind, result";
  static final String KEY = "tenant = ? AND tool = ? AND idem_key = ?";

  private ClaimRows() {}

  /** The row a claim writes: in progress, held by its token, times from the store's clock. */
  static ClaimRecord newRow(ClaimRequest r, int attempt, long nowMs) {
    return newRow(r.id(), r, attempt, nowMs);
  }

  /** The row {@code r} wrote over the row of {@code id} (a takeover), as the database names it. */
  static ClaimRecord newRow(ClaimId id, ClaimRequest r, int attempt, long nowMs) {
    return new ClaimRecord(
        id,
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
