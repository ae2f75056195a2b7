package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.audit.AuditRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a {@link JdbcAuditSink}'s batches to its table, on its writer thread: creates the table on
 * the first write when asked, writes a batch in one transaction, and counts what was written and
 * what was lost. Logs as the sink.
 */
final class AuditTableWriter {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcAuditSink.class);

  private final DataSource dataSource;
  private final String table;
  private final boolean createTable;
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile String insertSql;

  AuditTableWriter(DataSource dataSource, String table, boolean createTable) {
    this.dataSource = dataSource;
    this.table = table;
    this.createTable = createTable;
  }

  /**
   * @return records written
   */
  long written() {
    return written.get();
  }

  /**
   * @return records lost because their batch could not be written
   */
  long failed() {
    return failed.get();
  }

  /**
   * Writes a batch in one statement; if the batch fails, writes its records one by one, so that one
   * record the database refuses never takes the others (other tenants' too) down with it.
   */
  void write(List<AuditRecord> batch) {
    try (Connection c = dataSource.getConnection()) {
      if (insertSql == null) {
        JdbcDialect dialect = JdbcDialect.detect(c.getMetaData());
        if (createTable && !Schema.tableExists(c, table)) {
          Schema.run(c, dialect.auditDdl(table));
          LOG.info("created the audit table {} ({}; createSchemaIfMissing)", table, dialect);
        }
        insertSql =
            "INSERT INTO "
                + TableName.check(table)
                + " ("
                + JdbcAuditLog.COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
      }
      // one transaction per batch: some drivers go on past a failed row of a batch, and a
      // batch written in auto-commit could leave half of it behind to be written twice
      boolean autoCommit = c.getAutoCommit();
      if (autoCommit) {
        c.setAutoCommit(false);
      }
      try {
        writeIsolated(c, batch);
      } finally {
        if (autoCommit) {
          c.setAutoCommit(true);
        }
      }
    } catch (SQLException | RuntimeException e) {
      lost(batch, e);
    }
  }

  private void writeIsolated(Connection c, List<AuditRecord> batch) throws SQLException {
    try {
      insert(c, batch);
      written.addAndGet(batch.size());
      return;
    } catch (SQLException | RuntimeException batchFailed) {
      c.rollback();
      if (batch.size() == 1) {
        lost(batch, batchFailed);
        return;
      }
    }
    for (AuditRecord r : batch) {
      try {
        insert(c, List.of(r));
        written.incrementAndGet();
      } catch (SQLException | RuntimeException alone) {
        c.rollback();
        lost(List.of(r), alone);
      }
    }
  }

  private void insert(Connection c, List<AuditRecord> records) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insertSql)) {
      for (AuditRecord r : records) {
        ps.setLong(1, r.at().toEpochMilli());
        name(ps, 2, r.tenant());
        name(ps, 3, r.tool());
        name(ps, 4, r.key());
        text(ps, 5, r.argsHash(), 80);
        text(ps, 6, r.arguments(), 4000);
        ps.setString(7, r.decision().name());
        text(ps, 8, r.reason(), 1000);
        ps.setInt(9, r.attempt());
        text(ps, 10, r.resultSummary(), 1000);
        ps.setLong(11, r.durationMicros());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    c.commit();
  }

  private void lost(List<AuditRecord> records, Exception e) {
    long n = failed.addAndGet(records.size());
    LOG.warn(
        "could not write {} audit record(s) to {} ({} lost so far)", records.size(), table, n, e);
  }

  /**
   * @return the text with what no database's text column holds replaced by U+FFFD: NUL (which
   *     PostgreSQL refuses) and lone surrogates (which no UTF-8 column can keep)
   */
  static String printable(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char ch = value.charAt(i);
      boolean pair =
          Character.isHighSurrogate(ch)
              && i + 1 < value.length()
              && Character.isLowSurrogate(value.charAt(i + 1));
      boolean bad = ch == 0 || (!pair && Character.isSurrogate(ch));
      if (bad && out == null) {
        out = new StringBuilder(value.length()).append(value, 0, i);
      }
      if (out != null) {
        out.append(bad ? '\ufffd' : ch);
        if (pair) {
          out.append(value.charAt(i + 1));
        }
      }
      if (pair) {
        i++;
      }
    }
    return out == null ? value : out.toString();
  }

  /**
   * Binds a tenant, tool or key cut to at most {@value ClaimId#MAX_LENGTH} code points, what every
   * audit table's column holds (PostgreSQL counts code points, H2 holds twice as many UTF-16 units,
   * MariaDB four bytes each): a valid one is never cut, whatever its characters.
   */
  private static void name(PreparedStatement ps, int index, String value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.VARCHAR);
      return;
    }
    String cut = printable(value);
    if (cut.codePointCount(0, cut.length()) > ClaimId.MAX_LENGTH) {
      cut = cut.substring(0, cut.offsetByCodePoints(0, ClaimId.MAX_LENGTH));
    }
    ps.setString(index, cut);
  }

  /** Binds text cut to at most {@code max} characters, never inside a surrogate pair. */
  private static void text(PreparedStatement ps, int index, String value, int max)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.VARCHAR);
      return;
    }
    String cut = printable(value);
    if (cut.length() > max) {
      int end = Character.isHighSurrogate(cut.charAt(max - 1)) ? max - 1 : max;
      cut = cut.substring(0, end);
    }
    ps.setString(index, cut);
  }
}
