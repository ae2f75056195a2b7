package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
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
              jar -> jar.addClasses(LongTools.class, ReviewTools.class, ReviewTools.Payment.class))
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
      Thread.sleep(4000);
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
