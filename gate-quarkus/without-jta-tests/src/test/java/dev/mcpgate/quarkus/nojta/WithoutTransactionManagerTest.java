package dev.mcpgate.quarkus.nojta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extension in an application without a transaction manager (no data source, so no Narayana;
 * the claims in memory here, as they would be in Redis or DynamoDB): it starts without the beans
 * that watch transactions, and a gated tool, called by a client or from Java, runs once per key.
 */
class WithoutTransactionManagerTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(Charges.class, Orders.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "no-jta");

  static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

  static int runs(String account) {
    AtomicInteger n = RUNS.get(account);
    return n == null ? 0 : n.get();
  }

  static int run(String account) {
    return RUNS.computeIfAbsent(account, k -> new AtomicInteger()).incrementAndGet();
  }

  /** Gated tools. */
  public static class Charges {
    @Tool(
        description = "Charges an account.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    public ToolResponse charge(
        @ToolArg(name = "account") String account,
        @ToolArg(name = "amount_cents") long amountCents,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success("charged " + amountCents + " (run " + run(account) + ")");
    }

    @Tool(
        description = "Charges an account, but the card is declined before anything happens.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    public ToolResponse declined(
        @ToolArg(name = "account") String account,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      run(account);
      throw new IllegalStateException("card declined for " + account);
    }
  }

  /** A tool that is not gated and calls a gated one from Java, under a key of its own. */
  public static class Orders {
    @Inject Charges charges;

    @Tool(description = "Places an order of one line, not gated itself.")
    String order(
        @ToolArg(name = "account") String account, @ToolArg(name = "line_key") String lineKey) {
      ToolResponse line = charges.charge(account, 700, lineKey);
      return line.isError()
          + ":"
          + ((io.quarkiverse.mcp.server.TextContent) line.content().get(0)).text();
    }
  }

  @Inject Charges charges;

  private static McpSyncClient client;

  static synchronized McpSyncClient client() {
    if (client == null) {
      int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
      client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                      .endpoint("/mcp")
                      .build())
              .requestTimeout(Duration.ofSeconds(30))
              .build();
      client.initialize();
    }
    return client;
  }

  @AfterAll
  static synchronized void close() {
    if (client != null) {
      client.closeGracefully();
      client = null;
    }
  }

  private static CallToolResult call(String tool, Map<String, Object> arguments, String key) {
    return client()
        .callTool(new CallToolRequest(tool, arguments, Map.of("dev.mcpgate/idempotency-key", key)));
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @Test
  void theApplicationHasNoTransactionManagerAndNoneOfTheGatesTransactionBeans() {
    ClassLoader app = Thread.currentThread().getContextClassLoader();
    assertThatThrownBy(
            () -> Class.forName("io.quarkus.narayana.jta.runtime.NarayanaJtaProducers", false, app))
        .isInstanceOf(ClassNotFoundException.class);
    assertThat(Arc.container().instance("dev.mcpgate.quarkus.caller-transaction").isAvailable())
        .isFalse();
  }

  @Test
  void aRetriedCallReplaysWhatTheFirstAnswered() {
    String account = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    Map<String, Object> arguments = Map.of("account", account, "amount_cents", 1200);

    CallToolResult first = call("charge", arguments, key);
    CallToolResult retry = call("charge", arguments, key);

    assertThat(first.isError()).as("%s", first).isFalse();
    assertThat(text(first)).isEqualTo("charged 1200 (run 1)");
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(runs(account)).isEqualTo(1);
  }

  @Test
  void aFailureBeforeAnyEffectFreesTheKeyForARetryThatRunsAgain() {
    String account = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();

    // the server answers an exception with a JSON-RPC error, which the client throws
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> call("declined", Map.of("account", account), key))
          .hasMessageContaining("Internal error");
    }

    assertThat(runs(account)).isEqualTo(2);
  }

  @Test
  void aGatedToolCalledFromJavaInsideAnUngatedToolRunsOncePerKey() {
    String account = UUID.randomUUID().toString();
    Map<String, Object> arguments = Map.of("account", account, "line_key", "line-1");

    CallToolResult first = call("order", arguments, UUID.randomUUID().toString());
    CallToolResult again = call("order", arguments, UUID.randomUUID().toString());

    assertThat(text(first)).isEqualTo("false:charged 700 (run 1)");
    assertThat(text(again)).isEqualTo(text(first));
    assertThat(runs(account)).isEqualTo(1);
  }

  @Test
  void aGatedToolCalledFromJavaOutsideAnyRequestRunsOncePerKey() {
    String account = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();

    ToolResponse first = charges.charge(account, 300, key);
    ToolResponse again = charges.charge(account, 300, key);

    assertThat(first.isError()).as("%s", first).isFalse();
    assertThat(again.content()).isEqualTo(first.content());
    assertThat(runs(account)).isEqualTo(1);
  }
}
