package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.microprofile.config.ConfigProvider;
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
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    String report = UUID.randomUUID().toString();
    CallToolRequest export =
        new CallToolRequest(
            "export", Map.of("report", report, "idempotency_key", UUID.randomUUID().toString()));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<CallToolResult> first = pool.submit(() -> client.callTool(export));
      Thread.sleep(4000); // two leases in: only renewals keep the key
      CallToolResult retry = client.callTool(export);

      assertThat(ReviewTools.runs(report))
          .as("runs; first %s, retry %s", first.get(), retry)
          .isEqualTo(1);
    } finally {
      pool.shutdownNow();
      client.closeGracefully();
    }
  }
}
