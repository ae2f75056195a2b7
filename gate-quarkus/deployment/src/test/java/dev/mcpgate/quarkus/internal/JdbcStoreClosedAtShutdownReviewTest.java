package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.jdbc.TestDatabases;
import dev.mcpgate.quarkus.deployment.TestClient;
import dev.mcpgate.quarkus.deployment.review.LongTools;
import dev.mcpgate.quarkus.deployment.review.ReviewTools;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A JDBC store holds a renewal connection made from the driver, not from Agroal (which Quarkus
 * closes). The extension's stop closed the store only when it was Redis, so each stop of the
 * application in a JVM that lives on (dev-mode live reload, continuous testing) left one database
 * session open (found in review). It now closes the JDBC store too.
 */
class JdbcStoreClosedAtShutdownReviewTest {
  static final TestDatabases.Target POSTGRES = TestDatabases.postgres();

  @RegisterExtension
  static final QuarkusUnitTest APP =
      credentials(
          new QuarkusUnitTest()
              .withApplicationRoot(
                  jar ->
                      jar.addClasses(
                          LongTools.class,
                          ReviewTools.class,
                          ReviewTools.Payment.class,
                          TestClient.class))
              .overrideConfigKey("quarkus.devservices.enabled", "false")
              .overrideConfigKey("quarkus.http.test-port", "0")
              .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
              .overrideConfigKey("quarkus.datasource.jdbc.url", POSTGRES.url())
              .overrideConfigKey("mcpgate.table-name", "mcpgate_quarkus_shutdown")
              .overrideConfigKey("mcpgate.create-schema-if-missing", "true")
              .overrideConfigKey("mcpgate.tenant.constant", "review"));

  private static QuarkusUnitTest credentials(QuarkusUnitTest app) {
    if (POSTGRES.user() != null) {
      app.overrideConfigKey("quarkus.datasource.username", POSTGRES.user());
    }
    if (POSTGRES.password() != null) {
      app.overrideConfigKey("quarkus.datasource.password", POSTGRES.password());
    }
    return app;
  }

  private static final TestClient CLIENT = new TestClient();

  @Inject GateBeans beans;

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void stopClosesTheRenewalConnectionOfTheJdbcStore() throws Exception {
    String report = UUID.randomUUID().toString();
    CLIENT
        .get()
        .callTool(
            new CallToolRequest(
                "export",
                Map.of("report", report, "idempotency_key", UUID.randomUUID().toString())));
    Object store = beans.store();
    Method holds = store.getClass().getDeclaredMethod("holdsRenewalConnection");
    holds.setAccessible(true);
    assertThat(holds.invoke(store)).as("a renewal ran during the export").isEqualTo(true);

    // what the ShutdownEvent does (reflection: the test's class loader differs)
    Method stop = GateBeans.class.getDeclaredMethod("stop", io.quarkus.runtime.ShutdownEvent.class);
    stop.setAccessible(true);
    stop.invoke(beans, new io.quarkus.runtime.ShutdownEvent());

    assertThat(holds.invoke(store))
        .as("the store's driver-made renewal connection after the application stopped")
        .isEqualTo(false);
  }
}
