package dev.mcpgate.benchmarks.throughput;

import javax.sql.DataSource;

/**
 * One way of deduplicating a call over JDBC. Per key: {@link #fresh} is the first arrival (claim,
 * effect if any, completion); {@link #replay} is a second arrival of the same key, which must be
 * recognised as a duplicate.
 */
interface Contender {

  /**
   * @return the name printed in the results
   */
  String name();

  /** Drops and creates this contender's tables, then makes it ready to run. */
  void reset(DataSource dataSource, Database database) throws Exception;

  void fresh(String key) throws Exception;

  void replay(String key) throws Exception;

  /** The database under test: the SQL that differs between the two. */
  enum Database {
    POSTGRESQL("INSERT INTO %s VALUES (?, ?, 'IN_PROGRESS', NULL) ON CONFLICT DO NOTHING", "BYTEA"),
    MARIADB("INSERT IGNORE INTO %s VALUES (?, ?, 'IN_PROGRESS', NULL)", "BLOB");

    final String insertIfAbsent;
    final String bytes;

    Database(String insertIfAbsent, String bytes) {
      this.insertIfAbsent = insertIfAbsent;
      this.bytes = bytes;
    }

    static Database of(String jdbcUrl) {
      if (jdbcUrl.startsWith("jdbc:postgresql:")) {
        return POSTGRESQL;
      }
      if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
        return MARIADB;
      }
      throw new IllegalArgumentException(
          "the JDBC benchmark runs on PostgreSQL or MariaDB/MySQL," + " not " + jdbcUrl);
    }
  }
}
