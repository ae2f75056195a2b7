package dev.mcpgate.jdbc.review;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Assumptions;

/** The review tests' own pools on the shared servers (MCPGATE_TEST_*_URL) and embedded H2. */
final class ReviewDatabases {
  private ReviewDatabases() {}

  static String url(String env) {
    String url = System.getenv(env);
    Assumptions.assumeTrue(url != null && !url.isBlank(), env + " is not set");
    return url;
  }

  static HikariDataSource postgres(String name, int size) {
    return pool(url("MCPGATE_TEST_POSTGRES_URL"), name, size);
  }

  static HikariDataSource mariadb(String name, int size) {
    return pool(url("MCPGATE_TEST_MARIADB_URL"), name, size);
  }

  static HikariDataSource h2(String name, int size) {
    return pool("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", name, size);
  }

  static HikariDataSource pool(String url, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setPoolName("review-" + name);
    config.setConnectionTimeout(30_000);
    return new HikariDataSource(config);
  }
}
