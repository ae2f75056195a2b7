package dev.mcpgate.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * MariaDB and MySQL: a consistent SELECT, then a plain INSERT (see {@link SelectThenInsertSql}).
 * Not {@code INSERT IGNORE}, which would turn a too-long value into a silent truncation, and not
 * {@code ON DUPLICATE KEY UPDATE}, which locks the existing row even when it changes nothing.
 */
final class MySqlFamilySql extends SelectThenInsertSql {
  private static final int ER_DUP_ENTRY = 1062;
  private static final int ER_LOCK_DEADLOCK = 1213;

  private final String purgeSql;

  MySqlFamilySql(String table) {
    super(table,
        "(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP'1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
        // InnoDB's consistent reads keep the transaction's first snapshot (REPEATABLE READ):
        // inside a transaction, read the latest committed row, waiting for an uncommitted one
        " LOCK IN SHARE MODE");
    this.purgeSql = "DELETE FROM " + table + " WHERE expires_at_ms <= " + nowMs
        + " ORDER BY created_at_ms LIMIT ?";
  }

  @Override
  boolean isLostRace(SQLException e) {
    // a deadlock between two transactions that claim the same absent key rolls one back
    return e.getErrorCode() == ER_DUP_ENTRY || e.getErrorCode() == ER_LOCK_DEADLOCK;
  }

  /**
   * {@code innodb_lock_wait_timeout} 0 for the session until restored: MariaDB gives up at once
   * (error 1205); MySQL accepts no less than 1 s and waits that long.
   */
  @Override
  String noLockWait(Connection c) throws SQLException {
    String previous = queryOne(c, "SELECT @@SESSION.innodb_lock_wait_timeout");
    run(c, "SET SESSION innodb_lock_wait_timeout = 0");
    return previous;
  }

  @Override
  void restoreLockWait(Connection c, String previous) throws SQLException {
    run(c, "SET SESSION innodb_lock_wait_timeout = " + Long.parseLong(previous));
  }

  @Override
  String purgeSql() {
    return purgeSql;
  }
}
