package dev.mcpgate.jdbc;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Reads the audit table that a {@link JdbcAuditSink} writes: the history of one key, oldest first,
 * or the keys whose (redacted) arguments contain a text. For operators and the {@code status}
 * command: "ran once, attempt 1, replayed 3 times".
 */
public final class JdbcAuditLog {
  /** The audit table's columns, read here and inserted by {@link AuditTableWriter}. */
  static final String COLUMNS =
      "at_ms, tenant, tool, idem_key, args_hash, arguments,"
          + " decision, reason, attempt, result_summary, duration_us";

  private final DataSource dataSource;
  private final String table;

  private JdbcAuditLog(DataSource dataSource, String table) {
    this.dataSource = dataSource;
    this.table = table;
  }

  /**
   * @param dataSource where the audit table is
   * @param table its name ({@code mcpgate_audit} by default in the sink)
   * @return a reader
   */
  public static JdbcAuditLog of(DataSource dataSource, String table) {
    return new JdbcAuditLog(
        requireNonNull(dataSource, "dataSource must not be null"), TableName.check(table));
  }

  /**
   * @return every record of (tenant, tool, key), oldest first
   */
  public List<AuditRecord> history(String tenant, String tool, String key) throws SQLException {
    return query(
        "SELECT "
            + COLUMNS
            + " FROM "
            + table
            + " WHERE tenant = ? AND tool = ? AND idem_key = ? ORDER BY id",
        0,
        requireNonNull(tenant, "tenant must not be null"),
        requireNonNull(tool, "tool must not be null"),
        requireNonNull(key, "key must not be null"));
  }

  /**
   * @param text a text the redacted arguments contain (matched literally, {@code %} and {@code _}
   *     included)
   * @return at most {@code limit} records of the tenant whose arguments contain it, newest first
   */
  public List<AuditRecord> search(String tenant, String text, int limit) throws SQLException {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    String escaped =
        requireNonNull(text, "text must not be null")
            .replace("!", "!!")
            .replace("%", "!%")
            .replace("_", "!_");
    return query(
        "SELECT "
            + COLUMNS
            + " FROM "
            + table
            + " WHERE tenant = ? AND arguments LIKE ? ESCAPE '!' ORDER BY id DESC",
        limit,
        requireNonNull(tenant, "tenant must not be null"),
        "%" + escaped + "%");
  }

  private List<AuditRecord> query(String sql, int limit, String... params) throws SQLException {
    List<AuditRecord> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setString(i + 1, params[i]);
      }
      if (limit > 0) {
        ps.setMaxRows(limit);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new AuditRecord(
                  Instant.ofEpochMilli(rs.getLong(1)),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  AuditDecision.valueOf(rs.getString(7)),
                  rs.getString(8),
                  rs.getInt(9),
                  rs.getString(10),
                  rs.getLong(11)));
        }
      }
    }
    return out;
  }
}
