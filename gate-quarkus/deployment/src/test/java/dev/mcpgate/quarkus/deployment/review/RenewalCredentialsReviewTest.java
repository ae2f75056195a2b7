package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (high): the JDBC store's lease renewals connect through the driver with
 * quarkus.datasource.jdbc.url, username and password only. A data source whose credentials come
 * from a credentials provider (Vault, a custom CredentialsProvider; or whose connection needs
 * additional-jdbc-properties) starts fine, because the startup check uses the Agroal pool, and
 * claims and completions work through the pool; but every renewal fails. A run longer than its
 * lease is then taken over by its retry, which runs the effect a second time while the first still
 * runs. Expected: one run (renewals work, or the startup refuses a renewal path it cannot use).
 * Needs PostgreSQL at 127.0.0.1:5432 (trust auth, database test, as .ci/run starts it). Given no
 * user, PgJDBC connects as the OS user (user.name); on this machine that is root, a superuser role
 * of the test database, which would hide the fault, so the test runs as an OS user with no role, as
 * an application's container user has none (and on a password-authenticated database no password is
 * sent at all).
 */
class RenewalCredentialsReviewTest {
  private static final String OS_USER = System.getProperty("user.name");

  static {
    System.setProperty("user.name", "mcpgate_review_no_such_role");
  }

  @org.junit.jupiter.api.AfterAll
  static void restoreOsUser() {
    System.setProperty("user.name", OS_USER);
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
                      ReviewTools.Payment.class,
                      VaultLikeCredentials.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
          .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:5432/test")
          .overrideConfigKey("quarkus.datasource.credentials-provider", "review")
          .overrideConfigKey("quarkus.datasource.credentials-provider-name", "review-credentials")
          .overrideConfigKey("mcpgate.table-name", "mcpgate_review_renewal")
          .overrideConfigKey("mcpgate.create-schema-if-missing", "true")
          .overrideConfigKey("mcpgate.tenant.constant", "review");

  @Test
  void aRunLongerThanItsLeaseIsNotTakenOverByItsRetry() throws Exception {
    LongExport.aRunLongerThanItsLeaseRunsOnce();
  }
}
