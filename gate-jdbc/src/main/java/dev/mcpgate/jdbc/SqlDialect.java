package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * What differs between databases: the store clock expression, the claim and the purge. Every
 * other statement is shared and conditional on the lease token.
 */
abstract class SqlDialect {
  static final String COLUMNS = "tenant, tool, idem_key, args_hash, state, lease_token, attempt,"
      + " created_at_ms, lease_expires_at_ms, expires_at_ms, completed_at_ms, result_kind, result";
  static final String KEY = "tenant = ? AND tool = ? AND idem_key = ?";

  final String table;

  SqlDialect(String table) {
    this.table = table;
  }

  /**
   * The SPI's one takeover rule ({@link dev.mcpgate.core.spi.Takeover#allowed}) as an SQL
   * condition, in parentheses: a claim at {@code now} with {@code hash} may write over the row.
   *
   * @param row the prefix of the row's columns ({@code "r."}, or {@code ""})
   * @param now an expression for the store clock in epoch milliseconds
   * @param hash an expression for the claim's argument hash
   */
  static String takeoverAllowed(String row, String now, String hash) {
    return "(" + row + "expires_at_ms <= " + now + " OR (" + row + "state <> 'COMPLETED' AND "
        + row + "lease_expires_at_ms <= " + now + " AND " + row + "args_hash = " + hash + "))";
  }

  /** {@link dev.mcpgate.core.spi.Takeover#nextAttempt} in SQL, for a row a claim may take. */
  static String nextAttempt(String row, String now) {
    return "CASE WHEN " + row + "expires_at_ms <= " + now + " THEN 1 ELSE " + row
        + "attempt + 1 END";
  }

  /** @return an SQL expression for the database clock in epoch milliseconds (one value per statement) */
  abstract String nowMs();

  /** Claims atomically; see {@link dev.mcpgate.core.spi.IdempotencyStore#claim}. */
  abstract ClaimAttempt claim(Connection c, ClaimRequest r) throws SQLException;

  /** @return a DELETE of at most {@code ?} expired rows */
  abstract String purgeSql();

  String completeSql() {
    String now = nowMs();
    return "UPDATE " + table + " SET state = 'COMPLETED', completed_at_ms = " + now
        + ", expires_at_ms = " + now + " + ?, result_kind = ?, result = ?"
        + " WHERE " + KEY + " AND lease_token = ? AND state <> 'COMPLETED'";
  }

  String releaseSql() {
    return "DELETE FROM " + table + " WHERE " + KEY + " AND lease_token = ? AND state <> 'COMPLETED'";
  }

  String extendSql() {
    String now = nowMs();
    return "UPDATE " + table + " SET lease_expires_at_ms = " + now + " + ?, expires_at_ms ="
        + " GREATEST(expires_at_ms, " + now + " + ?)"
        + " WHERE " + KEY + " AND lease_token = ? AND state = 'IN_PROGRESS'";
  }

  String markUnknownSql() {
    return "UPDATE " + table + " SET state = 'UNKNOWN'"
        + " WHERE " + KEY + " AND lease_token = ? AND state = 'IN_PROGRESS'";
  }

  String findSql() {
    return "SELECT " + COLUMNS + ", " + nowMs() + " AS now_ms FROM " + table + " WHERE " + KEY;
  }

  String nowSql() {
    return "SELECT " + nowMs();
  }

  static int bindKey(PreparedStatement ps, int index, ClaimId id) throws SQLException {
    ps.setString(index, id.tenant());
    ps.setString(index + 1, id.tool());
    ps.setString(index + 2, id.key());
    return index + 3;
  }

  /**
   * Binds a claim's values in the order every dialect's claim statement takes them: tenant, tool,
   * key, hash, token, lease millis, retention millis.
   *
   * @return the next parameter index
   */
  static int bindClaim(PreparedStatement ps, int index, ClaimRequest r) throws SQLException {
    int i = bindKey(ps, index, r.id());
    ps.setString(i++, r.argsHash());
    ps.setString(i++, r.token().value());
    ps.setLong(i++, r.lease().toMillis());
    ps.setLong(i++, r.retention().toMillis());
    return i;
  }

  boolean complete(Connection c, ClaimId id, LeaseToken token, StoredResult result,
      Duration retention) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(completeSql())) {
      ps.setLong(1, retention.toMillis());
      ps.setString(2, result.kind().name());
      ps.setBytes(3, result.body());
      int i = bindKey(ps, 4, id);
      ps.setString(i, token.value());
      return ps.executeUpdate() == 1;
    }
  }

  boolean release(Connection c, ClaimId id, LeaseToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(releaseSql())) {
      int i = bindKey(ps, 1, id);
      ps.setString(i, token.value());
      return ps.executeUpdate() == 1;
    }
  }

  /** Reads the row at the cursor: the {@link #COLUMNS}, then {@code now_ms}. */
  static ClaimRecord readRow(ResultSet rs) throws SQLException {
    String kind = rs.getString("result_kind");
    ClaimState state = ClaimState.valueOf(rs.getString("state"));
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

  /** The row at (tenant, tool, key) and the store clock, or null when there is no row. */
  ClaimAttempt.Existing select(Connection c, ClaimId id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(findSql())) {
      bindKey(ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new ClaimAttempt.Existing(readRow(rs), Instant.ofEpochMilli(rs.getLong("now_ms")));
      }
    }
  }

  /** Turns the row read after a claim statement into acquired or existing, by its token. */
  static ClaimAttempt classify(ClaimAttempt.Existing read, LeaseToken token) {
    return read.record().token().equals(token)
        ? new ClaimAttempt.Acquired(read.record(), read.storeNow())
        : read;
  }
}
