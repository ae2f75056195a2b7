package dev.mcpgate.examples;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The example's own tables: stories, reproductions, sessions and their stops. Portable SQL. */
final class BusinessDb {
  private BusinessDb() {}

  static void create(DataSource ds) throws SQLException {
    String[] ddl = {
      "CREATE TABLE IF NOT EXISTS example_stories (tenant VARCHAR(255) NOT NULL,"
          + " slug VARCHAR(200) NOT NULL, title VARCHAR(500) NOT NULL, body VARCHAR(4000) NOT NULL,"
          + " reproductions INTEGER NOT NULL, announced_uri VARCHAR(500),"
          + " PRIMARY KEY (tenant, slug))",
      "CREATE TABLE IF NOT EXISTS example_reproductions (tenant VARCHAR(255) NOT NULL,"
          + " story_slug VARCHAR(200) NOT NULL, reporter VARCHAR(200) NOT NULL,"
          + " PRIMARY KEY (tenant, story_slug, reporter))",
      "CREATE TABLE IF NOT EXISTS example_sessions (tenant VARCHAR(255) NOT NULL, id VARCHAR(100)"
          + " NOT NULL, started_at VARCHAR(40) NOT NULL, state VARCHAR(16) NOT NULL, ended_at"
          + " VARCHAR(40), summary VARCHAR(1000), notes VARCHAR(4000), PRIMARY KEY (tenant, id))",
      "CREATE TABLE IF NOT EXISTS example_session_stops (tenant VARCHAR(255) NOT NULL,"
          + " session_id VARCHAR(100) NOT NULL, end_at VARCHAR(40) NOT NULL,"
          + " summary VARCHAR(1000) NOT NULL, op_id VARCHAR(255))"
    };
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      for (String sql : ddl) {
        st.execute(sql);
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }
}
