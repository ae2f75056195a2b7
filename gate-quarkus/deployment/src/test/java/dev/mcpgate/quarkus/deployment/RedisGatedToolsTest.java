package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.internal.GateBeans;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code mcpgate.store=redis}: a real Quarkus MCP server (Streamable HTTP) whose claims are in the
 * real Redis at {@code MCPGATE_TEST_REDIS_URL}, on this module's class path: gate-redis with
 * Lettuce 6.8.1 on the Netty 4.1 that Quarkus pins. What a gated tool answers, how often it ran,
 * and where its claims are.
 */
@ExtendWith(TestRedisUrl.Single.class)
class RedisGatedToolsTest {
  // read here, not through TestRedisUrl: this class is loaded again inside the application
  static final String URL =
      java.util.Objects.requireNonNullElse(
          System.getenv("MCPGATE_TEST_REDIS_URL"), "redis://unset.invalid:6379");
  static final String PREFIX = "mcpgate-quarkus-" + UUID.randomUUID() + ":";

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", URL)
          .overrideConfigKey("mcpgate.redis.key-prefix", PREFIX)
          .overrideConfigKey("mcpgate.tenant.constant", "acme")
          // the startup reads Lettuce's and Netty's versions through Quarkus' class loader, as the
          // check of Lettuce 7 on Netty 4.1 does
          .setLogRecordPredicate(r -> r.getLoggerName().equals(GateBeans.class.getName()))
          .assertLogRecords(
              records ->
                  assertThat(records)
                      .anySatisfy(
                          r ->
                              assertThat(r.getMessage())
                                  .contains("MCP Gate keeps its claims in Redis at " + URL)
                                  .contains("Lettuce 6.8.1.RELEASE on Netty 4.1.")));

  @Inject GateBeans gate;

  private static final List<McpSyncClient> CLIENTS = new ArrayList<>();

  @AfterAll
  static void closeClients() {
    CLIENTS.forEach(McpSyncClient::closeGracefully);
  }

  /** A client of the server; the tenant is the constant {@code acme}. */
  static McpSyncClient client() {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
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
  void theStoreIsRedis() {
    assertThat(gate.store()).isInstanceOf(RedisIdempotencyStore.class);
  }

  @Test
  void retryReplaysTheFirstResult() {
    McpSyncClient client = client();
    String order = fresh();
    String key = fresh();
    CallToolResult first = refund(client, order, 1250, key);
    CallToolResult retry = refund(client, order, 1250, key);

    assertThat(first.isError()).as("%s", first).isFalse();
    assertThat(text(first)).isEqualTo("refunded 1250 cents of " + order + " (run 1)");
    assertThat(meta(first)).doesNotContainKey("dev.mcpgate/replayed");
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(RefundTools.runs(order)).isEqualTo(1);
  }

  @Test
  void eightConcurrentCopiesRunOnce() throws Exception {
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
    McpSyncClient client = client();
    String order = fresh();
    String key = fresh();
    refund(client, order, 1000, key);
    CallToolResult other = refund(client, order, 9000, key);

    Map<String, Object> error = error(other);
    assertThat(error)
        .containsEntry("type", "idempotency_key_conflict")
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", false);
    assertThat(RefundTools.runs(order)).isEqualTo(1);
  }

  @Test
  void theClaimsAreInRedisUnderTheKeyPrefix() {
    String order = fresh();
    String key = fresh();
    refund(client(), order, 300, key);

    // the application's prefix: this class is loaded again inside the application, with a new one
    String prefix = ConfigProvider.getConfig().getValue("mcpgate.redis.key-prefix", String.class);
    assertThat(prefix).startsWith("mcpgate-quarkus-");
    RedisClient direct = RedisClient.create(URL);
    try (StatefulRedisConnection<String, String> c = direct.connect()) {
      List<String> keys = c.sync().keys(prefix + "*");
      assertThat(keys).as("claims under %s", prefix).isNotEmpty();
      assertThat(keys).as("this call's claim").anyMatch(k -> k.contains(key));
    } finally {
      direct.shutdown();
    }
  }
}
