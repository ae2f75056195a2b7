package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.jdbc.TestDatabases;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.ProdBuildResults;
import io.quarkus.test.ProdModeTestResults;
import io.quarkus.test.QuarkusProdModeTest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Quarkus MCP server over stdio, as a client such as a desktop assistant runs it: the
 * application is built by Quarkus as a production jar, started as a process of its own, and called
 * by the MCP Java SDK's stdio client; its claims go to PostgreSQL. The tool says in its answer how
 * often it ran for the order (RefundTools' "(run n)"), which is how this test, outside the server's
 * process, counts executions.
 */
class StdioGatedToolsTest {
  static final String TABLE = "mcpgate_quarkus_stdio_test";
  static final TestDatabases.Target POSTGRES = TestDatabases.postgres();

  @RegisterExtension
  static final QuarkusProdModeTest APP =
      credentials(new QuarkusProdModeTest())
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .setApplicationName("stdio-refunds")
          .setApplicationVersion("1")
          .setRun(false)
          // a production build takes the application's dependencies, not the test classpath
          .setForcedDependencies(
              List.of(
                  Dependency.of(
                      "io.quarkiverse.mcp",
                      "quarkus-mcp-server-stdio",
                      System.getProperty("quarkus-mcp-server.version")),
                  Dependency.of(
                      "io.quarkus", "quarkus-agroal", System.getProperty("quarkus.version")),
                  Dependency.of(
                      "io.quarkus",
                      "quarkus-jdbc-postgresql",
                      System.getProperty("quarkus.version"))))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
          .overrideConfigKey("quarkus.datasource.jdbc.url", POSTGRES.url())
          .overrideConfigKey("quarkus.datasource.jdbc.max-size", "12")
          // stdout carries MCP only: the banner and the log go to stderr
          .overrideConfigKey("quarkus.log.console.stderr", "true")
          .overrideConfigKey("mcpgate.table-name", TABLE)
          .overrideConfigKey("mcpgate.create-schema-if-missing", "true")
          // a stdio server has one user: nobody authenticates over a pipe
          .overrideConfigKey("mcpgate.tenant.constant", "desktop");

  private static QuarkusProdModeTest credentials(QuarkusProdModeTest app) {
    if (POSTGRES.user() != null) {
      app.overrideConfigKey("quarkus.datasource.username", POSTGRES.user());
    }
    if (POSTGRES.password() != null) {
      app.overrideConfigKey("quarkus.datasource.password", POSTGRES.password());
    }
    return app;
  }

  @ProdBuildResults ProdModeTestResults build;

  private static McpSyncClient client;
  private static RuntimeException startFailure;

  /** One server process for the class, started on first use (the build is known only then). */
  McpSyncClient client() {
    if (startFailure != null) {
      throw startFailure;
    }
    if (client == null) {
      Path jar = build.getBuildDir().resolve("quarkus-app").resolve("quarkus-run.jar");
      assertThat(jar).as("the production build").exists();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ServerParameters server =
          ServerParameters.builder(java)
              .args("-Dquarkus.mcp.server.stdio.enabled=true", "-jar", jar.toString())
              .build();
      client =
          McpClient.sync(new StdioClientTransport(server, McpJsonDefaults.getMapper()))
              .requestTimeout(Duration.ofSeconds(60))
              .initializationTimeout(Duration.ofSeconds(60))
              .build();
      try {
        client.initialize();
      } catch (RuntimeException e) {
        startFailure = e; // the next tests fail at once, not after another timeout each
        throw e;
      }
    }
    return client;
  }

  @AfterAll
  static void stopServer() {
    if (client != null) {
      client.closeGracefully(); // closes the server's stdin; Quarkus exits
    }
  }

  static CallToolResult refund(McpSyncClient client, String order, long cents, String key) {
    return client.callTool(
        new CallToolRequest(
            "refund", Map.of("order_id", order, "amount_cents", cents, "idempotency_key", key)));
  }

  static String text(CallToolResult result) {
    assertThat(result.isError()).as("not an error: %s", result).isFalse();
    return ((TextContent) result.content().get(0)).text();
  }

  static String fresh() {
    return UUID.randomUUID().toString();
  }

  /** The claims rows of the key, per tenant, as PostgreSQL holds them. */
  static List<String> tenantsOf(String key) throws Exception {
    Properties login = new Properties();
    if (POSTGRES.user() != null) {
      login.setProperty("user", POSTGRES.user());
    }
    if (POSTGRES.password() != null) {
      login.setProperty("password", POSTGRES.password());
    }
    try (Connection c = DriverManager.getConnection(POSTGRES.url(), login);
        PreparedStatement q =
            c.prepareStatement("SELECT tenant FROM " + TABLE + " WHERE idem_key = ?")) {
      q.setString(1, key);
      List<String> tenants = new ArrayList<>();
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          tenants.add(rows.getString(1));
        }
      }
      return tenants;
    }
  }

  @Test
  void aRetryReplaysTheFirstResultAndTheRowIsTheConfiguredTenants() throws Exception {
    String order = fresh();
    String key = fresh();
    CallToolResult first = refund(client(), order, 1250, key);
    CallToolResult retry = refund(client(), order, 1250, key);

    assertThat(text(first)).isEqualTo("refunded 1250 cents of " + order + " (run 1)");
    assertThat(first.meta() == null ? Map.of() : first.meta())
        .doesNotContainKey("dev.mcpgate/replayed");
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(tenantsOf(key)).containsExactly("constant:desktop");
  }

  @Test
  void eightConcurrentCopiesOverOnePipeRunOnce() throws Exception {
    McpSyncClient client = client();
    String order = fresh();
    String key = fresh();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<CallToolResult>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        calls.add(
            pool.submit(
                () -> {
                  start.await();
                  return refund(client, order, 500, key);
                }));
      }
      start.countDown();
      for (Future<CallToolResult> call : calls) {
        assertThat(text(call.get())).isEqualTo("refunded 500 cents of " + order + " (run 1)");
      }
    } finally {
      pool.shutdownNow();
    }
    // one execution before: a new intent on the same order is its second run
    assertThat(text(refund(client, order, 500, fresh()))).endsWith("(run 2)");
  }

  @Test
  void anotherKeysArgumentsConflictAndDoNotRun() {
    String order = fresh();
    String key = fresh();
    text(refund(client(), order, 1000, key));
    CallToolResult other = refund(client(), order, 9000, key);

    assertThat(other.isError()).isTrue();
    @SuppressWarnings("unchecked")
    Map<String, Object> error =
        (Map<String, Object>) ((Map<String, Object>) other.structuredContent()).get("error");
    assertThat(error)
        .containsEntry("type", "idempotency_key_conflict")
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", false);
    assertThat(text(refund(client(), order, 1000, fresh()))).endsWith("(run 2)");
  }

  @Test
  void aKeyInMetaReplays() {
    String order = fresh();
    CallToolRequest call =
        new CallToolRequest(
            "refund",
            Map.of("order_id", order, "amount_cents", 5),
            Map.of("dev.mcpgate/idempotency-key", fresh()));
    CallToolResult first = client().callTool(call);
    CallToolResult retry = client().callTool(call);

    assertThat(text(first)).endsWith("(run 1)");
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
  }
}
