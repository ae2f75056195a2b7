package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.jdbc.TestDatabases;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real Quarkus MCP server (Streamable HTTP, PostgreSQL through Agroal, users alice and bob) and
 * the MCP Java SDK's client: what a gated {@code @Tool} answers, and how often it ran.
 */
class GatedToolsTest {
  static final String TABLE = "mcpgate_quarkus_test";
  static final TestDatabases.Target POSTGRES = TestDatabases.postgres();

  @RegisterExtension
  static final QuarkusUnitTest APP =
      credentials(new QuarkusUnitTest())
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
          .overrideConfigKey("quarkus.datasource.jdbc.url", POSTGRES.url())
          .overrideConfigKey("quarkus.datasource.jdbc.max-size", "16")
          .overrideConfigKey("mcpgate.table-name", TABLE)
          .overrideConfigKey("mcpgate.create-schema-if-missing", "true")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("quarkus.micrometer.export.json.enabled", "true")
          .overrideConfigKey("quarkus.http.auth.basic", "true")
          .overrideConfigKey("quarkus.security.users.embedded.enabled", "true")
          .overrideConfigKey("quarkus.security.users.embedded.plain-text", "true")
          .overrideConfigKey("quarkus.security.users.embedded.users.alice", "alice-pw")
          .overrideConfigKey("quarkus.security.users.embedded.users.bob", "bob-pw");

  /** The user and password of the database, where its URL does not carry them. */
  private static QuarkusUnitTest credentials(QuarkusUnitTest app) {
    if (POSTGRES.user() != null) {
      app.overrideConfigKey("quarkus.datasource.username", POSTGRES.user());
    }
    if (POSTGRES.password() != null) {
      app.overrideConfigKey("quarkus.datasource.password", POSTGRES.password());
    }
    return app;
  }

  private static final List<McpSyncClient> CLIENTS = new ArrayList<>();

  @Inject DataSource dataSource;
  @Inject MeterRegistry meters;

  @AfterAll
  static void closeClients() {
    CLIENTS.forEach(McpSyncClient::closeGracefully);
  }

  static McpSyncClient client(String user) {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
            .endpoint("/mcp")
            .httpRequestCustomizer(
                (builder, method, uri, body, ctx) -> {
                  if (user != null) {
                    String basic = user + ":" + user + "-pw";
                    builder.header(
                        "Authorization",
                        "Basic "
                            + Base64.getEncoder()
                                .encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
                  }
                })
            .build();
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build();
    client.initialize();
    CLIENTS.add(client);
    return client;
  }

  static CallToolResult refund(McpSyncClient client, String order, long cents, String key) {
    return client.callTool(
        new CallToolRequest(
            "refund", Map.of("order_id", order, "amount_cents", cents, "idempotency_key", key)));
  }

  static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> error(CallToolResult result) {
    assertThat(result.isError()).as("an error: %s", result).isTrue();
    return (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
  }

  static Map<String, Object> meta(CallToolResult result) {
    return result.meta() == null ? Map.of() : result.meta();
  }

  static String fresh() {
    return UUID.randomUUID().toString();
  }

  @Test
  void retryReplaysTheFirstResult() {
    McpSyncClient alice = client("alice");
    String order = fresh();
    String key = fresh();
    CallToolResult first = refund(alice, order, 1250, key);
    CallToolResult retry = refund(alice, order, 1250, key);

    assertThat(first.isError()).isFalse();
    assertThat(text(first)).isEqualTo("refunded 1250 cents of " + order + " (run 1)");
    assertThat(meta(first)).doesNotContainKey("dev.mcpgate/replayed");
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(RefundTools.runs(order)).isEqualTo(1);
  }

  @Test
  void eightConcurrentCopiesRunOnce() throws Exception {
    McpSyncClient alice = client("alice");
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
                  return refund(alice, order, 500, key);
                }));
      }
      start.countDown();
      for (Future<CallToolResult> call : calls) {
        CallToolResult result = call.get();
        assertThat(result.isError()).as("%s", result).isFalse();
        assertThat(text(result)).isEqualTo("refunded 500 cents of " + order + " (run 1)");
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(RefundTools.runs(order)).isEqualTo(1);
  }

  @Test
  void anotherKeysArgumentsConflict() {
    McpSyncClient alice = client("alice");
    String order = fresh();
    String key = fresh();
    refund(alice, order, 1000, key);
    CallToolResult other = refund(alice, order, 9000, key);

    Map<String, Object> error = error(other);
    assertThat(error)
        .containsEntry("type", "idempotency_key_conflict")
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", false);
    assertThat(RefundTools.runs(order)).isEqualTo(1);
  }

  @Test
  void twoUsersWithTheSameKeyGetTwoRows() throws Exception {
    String order = fresh();
    String key = fresh();
    CallToolResult alices = refund(client("alice"), order, 700, key);
    CallToolResult bobs = refund(client("bob"), order, 700, key);

    assertThat(text(alices)).endsWith("(run 1)");
    assertThat(text(bobs)).endsWith("(run 2)");
    assertThat(meta(bobs)).doesNotContainKey("dev.mcpgate/replayed");
    List<String> tenants = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT tenant FROM " + TABLE + " WHERE idem_key = ? ORDER BY tenant")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          tenants.add(rs.getString(1));
        }
      }
    }
    assertThat(tenants).containsExactly("principal:alice", "principal:bob");
  }

  @Test
  void theDecisionsAreCountedOnTheApplicationsMeterRegistry() {
    McpSyncClient alice = client("alice");
    String order = fresh();
    String key = fresh();
    double replayedBefore = calls("replayed");
    refund(alice, order, 300, key);
    refund(alice, order, 300, key);

    assertThat(calls("replayed") - replayedBefore).isEqualTo(1.0);
    assertThat(meters.find("mcpgate.store.operations").timers()).isNotEmpty();
  }

  private double calls(String outcome) {
    return meters
        .find("mcpgate.calls")
        .tag("tool", "refund")
        .tag("outcome", outcome)
        .counters()
        .stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  @Test
  void aRunLongerThanItsLeaseKeepsItByRenewalsAndTheDuplicateWaitsForItsResult() throws Exception {
    McpSyncClient alice = client("alice");
    String report = fresh();
    CallToolRequest export =
        new CallToolRequest("export", Map.of("report", report, "idempotency_key", fresh()));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<CallToolResult> first = pool.submit(() -> alice.callTool(export));
      Thread.sleep(4000); // two leases in: without renewals the key would be taken over
      CallToolResult duplicate = alice.callTool(export);

      assertThat(text(first.get())).isEqualTo("exported " + report + " (run 1)");
      assertThat(text(duplicate)).isEqualTo(text(first.get()));
      assertThat(duplicate.meta()).containsEntry("dev.mcpgate/replayed", true);
    } finally {
      pool.shutdownNow();
    }
    assertThat(RefundTools.runs(report)).isEqualTo(1);
  }

  @Test
  void aFailedRunFreesTheKeyAndTheRetryRunsAgain() {
    McpSyncClient alice = client("alice");
    String to = fresh();
    CallToolRequest mail =
        new CallToolRequest("sendMail", Map.of("to", to, "idempotency_key", fresh()));
    CallToolResult failed = alice.callTool(mail);
    CallToolResult retry = alice.callTool(mail);

    assertThat(failed.isError()).isTrue();
    assertThat(text(failed)).isEqualTo("the mail server is down");
    assertThat(retry.isError()).as("%s", retry).isFalse();
    assertThat(text(retry)).isEqualTo("sent to " + to + " (run 2)");
    assertThat(meta(retry)).doesNotContainKey("dev.mcpgate/replayed");
  }

  @Test
  void anAnonymousCallIsRefusedNotRun() {
    String order = fresh();
    CallToolResult anonymous = refund(client(null), order, 100, fresh());

    assertThat(error(anonymous))
        .containsEntry("type", "tenant_unknown")
        .containsEntry("executed", "no");
    assertThat(RefundTools.runs(order)).isZero();
  }

  @Test
  void aKeyFromMetaReplays() {
    McpSyncClient alice = client("alice");
    String order = fresh();
    Map<String, Object> meta = Map.of("dev.mcpgate/idempotency-key", fresh());
    CallToolRequest call =
        new CallToolRequest("refund", Map.of("order_id", order, "amount_cents", 5), meta);
    CallToolResult first = alice.callTool(call);
    CallToolResult retry = alice.callTool(call);

    assertThat(first.isError()).as("%s", first).isFalse();
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(RefundTools.runs(order)).isEqualTo(1);
  }

  @Test
  void aCallWithoutAKeyIsRefusedNotRun() {
    String order = fresh();
    CallToolResult result =
        client("alice")
            .callTool(new CallToolRequest("refund", Map.of("order_id", order, "amount_cents", 5)));

    assertThat(error(result))
        .containsEntry("type", "idempotency_key_required")
        .containsEntry("executed", "no");
    assertThat(RefundTools.runs(order)).isZero();
  }

  @Test
  void aNaturalKeyReplaysTheSecondStop() {
    McpSyncClient alice = client("alice");
    String session = fresh();
    CallToolRequest stop = new CallToolRequest("stopSession", Map.of("session_id", session));
    CallToolResult first = alice.callTool(stop);
    CallToolResult second = alice.callTool(stop);

    assertThat(text(first)).isEqualTo("stopped " + session + " (run 1)");
    assertThat(text(second)).isEqualTo(text(first));
    assertThat(second.meta()).containsEntry("dev.mcpgate/replayed", true);
  }

  @Test
  void aDecimalReadAsDoubleIsRefusedNotRun() {
    String account = fresh();
    CallToolResult result =
        client("alice")
            .callTool(
                new CallToolRequest(
                    "charge",
                    Map.of("account", account, "amount", 12.5, "idempotency_key", fresh())));

    assertThat(error(result))
        .containsEntry("type", "arguments_invalid")
        .containsEntry("executed", "no");
    assertThat(RefundTools.runs(account)).isZero();
  }

  @Test
  @SuppressWarnings("unchecked")
  void theGatedToolTellsClientsItIsIdempotentAndNamesItsKey() {
    Tool refund =
        client("alice").listTools().tools().stream()
            .filter(t -> t.name().equals("refund"))
            .findFirst()
            .orElseThrow();

    assertThat(refund.annotations().idempotentHint()).isTrue();
    assertThat((Map<String, Object>) refund.inputSchema().get("properties"))
        .containsKey("idempotency_key");
    assertThat((List<Object>) refund.inputSchema().get("required"))
        .doesNotContain("idempotency_key");
  }
}
