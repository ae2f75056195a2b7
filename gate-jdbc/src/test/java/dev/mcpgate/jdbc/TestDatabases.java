package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MariaDBContainer;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * Finds a real database for each backend, in this order: the JDBC URL in an environment variable
 * ({@code MCPGATE_TEST_POSTGRES_URL}, {@code MCPGATE_TEST_MARIADB_URL}); Testcontainers where a
 * Docker engine is present; for PostgreSQL, an embedded server (zonky). A backend with none of
 * those is skipped with a message saying so, or fails the test when {@code
 * MCPGATE_TEST_REQUIRE_ALL=true} (as in CI). Never a mock.
 */
public final class TestDatabases {
  private static final Map<String, Object> CACHE = new ConcurrentHashMap<>();

  private TestDatabases() {}

  /** A reachable database: its JDBC URL, credentials and how it was found. */
  public record Target(String url, String user, String password, String how) {}

  public static Target postgres() {
    return require(
        "PostgreSQL",
        CACHE.computeIfAbsent(
            "postgres",
            k ->
                resolve(
                    "PostgreSQL",
                    "MCPGATE_TEST_POSTGRES_URL",
                    () -> {
                      PostgreSQLContainer<?> c = new PostgreSQLContainer<>("postgres:16-alpine");
                      c.start();
                      return new Target(
                          c.getJdbcUrl(), c.getUsername(), c.getPassword(), "Testcontainers");
                    },
                    TestDatabases::embeddedPostgres)));
  }

  static Target mariadb() {
    return require(
        "MariaDB",
        CACHE.computeIfAbsent(
            "mariadb",
            k ->
                resolve(
                    "MariaDB",
                    "MCPGATE_TEST_MARIADB_URL",
                    () -> {
                      MariaDBContainer<?> c = new MariaDBContainer<>("mariadb:11.4");
                      c.start();
                      return new Target(
                          c.getJdbcUrl(), c.getUsername(), c.getPassword(), "Testcontainers");
                    },
                    null)));
  }

  /**
   * @return the MariaDB target reached through MySQL's driver (Connector/J), the driver a MySQL
   *     user runs; there is no MySQL server here
   */
  static Target mariadbThroughConnectorJ() {
    Target mariadb = mariadb();
    if (!mariadb.url().startsWith("jdbc:mariadb:")) {
      throw new IllegalStateException("not a MariaDB JDBC URL: " + mariadb.url());
    }
    return new Target(
        "jdbc:mysql:" + mariadb.url().substring("jdbc:mariadb:".length()),
        mariadb.user(),
        mariadb.password(),
        mariadb.how() + ", through Connector/J");
  }

  static Target h2() {
    return new Target("jdbc:h2:mem:mcpgate;DB_CLOSE_DELAY=-1", "sa", "", "embedded H2");
  }

  /** A pooled data source on the target; pools are kept for the whole test run. */
  static HikariDataSource pool(Target target, String name, int size) {
    return (HikariDataSource)
        CACHE.computeIfAbsent(
            "pool:" + name + ":" + target.url(),
            k -> {
              HikariConfig config = new HikariConfig();
              config.setJdbcUrl(target.url());
              if (target.user() != null) {
                config.setUsername(target.user());
              }
              if (target.password() != null) {
                config.setPassword(target.password());
              }
              config.setMaximumPoolSize(size);
              config.setPoolName("mcpgate-" + name);
              config.setConnectionTimeout(30_000);
              return new HikariDataSource(config);
            });
  }

  /**
   * Closes and forgets the pools of these names, on every backend: for a test class whose pools no
   * later test needs. A cached pool keeps its connections open for the whole run, and the
   * PostgreSQL server here takes 100 in all: the renewal fault suite, which opens connections while
   * others are held, lost leases when idle pools held too many of them.
   */
  static void closePools(String... names) {
    CACHE
        .entrySet()
        .removeIf(
            e -> {
              for (String name : names) {
                if (e.getKey().startsWith("pool:" + name + ":")) {
                  ((HikariDataSource) e.getValue()).close();
                  return true;
                }
              }
              return false;
            });
  }

  /** Resolves a backend once, and says on the console where its tests run, or why they do not. */
  private static Object resolve(
      String backend, String env, Supplier<Target> container, Supplier<Target> embedded) {
    Object resolved = find(env, container, embedded);
    System.err.println(
        "[mcpgate tests] "
            + backend
            + ": "
            + (resolved instanceof Target t ? "running on " + t.how() : "SKIPPED, " + resolved));
    return resolved;
  }

  private static Object find(String env, Supplier<Target> container, Supplier<Target> embedded) {
    String url = System.getenv(env);
    if (url != null && !url.isBlank()) {
      return new Target(url, null, null, "environment variable " + env);
    }
    StringBuilder tried = new StringBuilder(env + " is not set");
    if (dockerAvailable()) {
      try {
        return container.get();
      } catch (RuntimeException e) {
        tried.append("; Testcontainers failed: ").append(e.getMessage());
      }
    } else {
      tried.append("; no Docker engine for Testcontainers");
    }
    if (embedded != null) {
      try {
        return embedded.get();
      } catch (RuntimeException e) {
        tried.append("; the embedded server failed: ").append(e.getMessage());
      }
    }
    return tried.toString();
  }

  /**
   * @return the target, or skips (fails, when MCPGATE_TEST_REQUIRE_ALL=true) naming what was tried
   */
  private static Target require(String backend, Object resolved) {
    if (resolved instanceof Target t) {
      return t;
    }
    String message = backend + " tests need a real " + backend + " server: " + resolved;
    if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
      Assertions.fail(message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
    }
    Assumptions.abort(message);
    return null;
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  private static Target embeddedPostgres() {
    try {
      io.zonky.test.db.postgres.embedded.EmbeddedPostgres pg =
          io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder().start();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      pg.close();
                    } catch (Exception ignored) {
                      // the JVM is going away
                    }
                  }));
      return new Target(pg.getJdbcUrl("postgres", "postgres"), null, null, "embedded PostgreSQL");
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
