package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.internal.GateBeans;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
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

/**
 * What a gated tool of a Quarkus MCP server on a Redis store answers and how often it ran, the same
 * on one Redis server ({@link RedisGatedToolsTest}) and on a Redis Cluster ({@link
 * RedisClusterGatedToolsTest}): each subclass is the application, on its own store.
 */
abstract class RedisGatedToolsContract {
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

  /** The application's gate, injected into the subclass (each is an application of its own). */
  abstract GateBeans gate();

  @Test
  void theStoreIsRedis() {
    assertThat(gate().store()).isInstanceOf(RedisIdempotencyStore.class);
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
}
