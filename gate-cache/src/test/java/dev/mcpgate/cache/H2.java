package dev.mcpgate.cache;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;

/** One embedded H2 database for the tests of this module, pooled, kept for the whole run. */
final class H2 {
  private static HikariDataSource pool;

  private H2() {}

  static synchronized HikariDataSource pool() {
    if (pool == null) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl("jdbc:h2:mem:mcpgate-cache;DB_CLOSE_DELAY=-1");
      config.setUsername("sa");
      config.setPassword("");
      config.setMaximumPoolSize(24);
      config.setPoolName("mcpgate-cache-h2");
      pool = new HikariDataSource(config);
    }
    return pool;
  }

  /**
   * @return a JDBC store on the shared H2 database; close it after use
   */
  static JdbcIdempotencyStore store() {
    return JdbcIdempotencyStore.builder(pool())
        .tableName("mcpgate_claims_cache_test")
        .createSchemaIfMissing(true)
        .build();
  }
}
