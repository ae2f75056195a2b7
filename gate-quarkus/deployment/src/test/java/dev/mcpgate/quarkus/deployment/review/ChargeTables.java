package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.quarkus.test.QuarkusUnitTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The review tests' charge tables in PostgreSQL at 127.0.0.1:5432 (database test, user postgres):
 * one row per charge, so that a test counts the effects its tools had.
 */
final class ChargeTables {
  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private ChargeTables() {}

  /**
   * @return an application of {@code classes} (with this class, {@link Runs} and {@link
   *     TestClient}) whose data source is that PostgreSQL, the gate on the memory store and the
   *     constant tenant {@code tenant}
   */
  static QuarkusUnitTest app(String tenant, Class<?>... classes) {
    return new QuarkusUnitTest()
        .withApplicationRoot(
            jar ->
                jar.addClasses(classes)
                    .addClasses(ChargeTables.class, Runs.class, TestClient.class))
        .overrideConfigKey("quarkus.devservices.enabled", "false")
        .overrideConfigKey("quarkus.http.test-port", "0")
        .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
        .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:5432/test")
        .overrideConfigKey("quarkus.datasource.username", "postgres")
        .overrideConfigKey("mcpgate.store", "memory")
        .overrideConfigKey("mcpgate.tenant.constant", tenant);
  }

  /**
   * A test class is initialized twice (JUnit's class loader and the application's): its table is
   * named and made once, the name shared through a system property.
   *
   * @param property the system property that keeps the table's name
   * @return the table's name; the table exists
   */
  static String create(String property) {
    String table =
        (String)
            System.getProperties()
                .computeIfAbsent(
                    property,
                    k ->
                        "mg_"
                            + property.replace('.', '_').replace('-', '_')
                            + "_"
                            + Long.toHexString(System.nanoTime()));
    try (Connection c = DriverManager.getConnection(URL);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS " + table + " (order_id text NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return table;
  }

  /**
   * @return how many charges of {@code order} the table holds
   */
  static int rows(String table, String order) throws SQLException {
    try (Connection c = DriverManager.getConnection(URL);
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM " + table + " WHERE order_id = ?")) {
      st.setString(1, order);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
