package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.quarkus.test.QuarkusUnitTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review of 2f80c62 (GateBeans.renewalProperties): the renewals' own connections get the data
 * source's URL, additional JDBC properties and credentials, but not
 * quarkus.datasource.jdbc.new-connection-sql, which Agroal runs on each of its connections. A data
 * source whose claims table resolves through it (SET search_path TO app) works through the pool;
 * the renewal connection does not see the table, so verify() (on by default) stops the startup of a
 * working application, and with mcpgate.verify-schema=false every renewal fails and a long run's
 * retry runs it again. Expected: the application starts and the long action runs once. Needs
 * PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class NewConnectionSqlReviewTest {
  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
  private static final String TABLE = "mg_review_ncs_" + Long.toHexString(System.nanoTime());

  static {
    try (Connection c = DriverManager.getConnection(URL + "?user=postgres");
        Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA IF NOT EXISTS gate_review_ncs");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      TestClient.class,
                      LongExport.class,
                      LongTools.class,
                      ReviewTools.class,
                      ReviewTools.Payment.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
          .overrideConfigKey("quarkus.datasource.jdbc.url", URL)
          .overrideConfigKey("quarkus.datasource.username", "postgres")
          .overrideConfigKey(
              "quarkus.datasource.jdbc.new-connection-sql", "SET search_path TO gate_review_ncs")
          .overrideConfigKey("mcpgate.table-name", TABLE)
          .overrideConfigKey("mcpgate.create-schema-if-missing", "true")
          .overrideConfigKey("mcpgate.tenant.constant", "review");

  @Test
  void aDataSourceWithNewConnectionSqlStartsAndRunsALongActionOnce() throws Exception {
    LongExport.aRunLongerThanItsLeaseRunsOnce();
  }
}
