package dev.mcpgate.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The example server as a user runs it, called by the MCP SDK's client over Streamable HTTP. */
@QuarkusTest
class RefundToolsTest {
  @TestHTTPResource URL server;

  McpSyncClient client;

  @BeforeEach
  void connect() {
    client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder(server.toString())
                    .endpoint("/mcp")
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
  }

  @AfterEach
  void disconnect() {
    client.closeGracefully();
  }

  CallToolResult refund(String order, int cents, String key) {
    return client.callTool(
        new CallToolRequest(
            "refund_order",
            Map.of("order_id", order, "amount_cents", cents, "idempotency_key", key)));
  }

  String count(String order) {
    return text(client.callTool(new CallToolRequest("count_refunds", Map.of("order_id", order))));
  }

  static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @Test
  void aRetriedRefundIsPaidOnce() {
    CallToolResult first = refund("ord_1", 500, "k-1");
    CallToolResult retry = refund("ord_1", 500, "k-1");

    assertThat(text(first)).endsWith(": 500 cents for ord_1");
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(count("ord_1")).isEqualTo("1");
  }

  @Test
  void theSameKeyWithOtherArgumentsIsRefused() {
    refund("ord_2", 500, "k-2");
    CallToolResult other = refund("ord_2", 900, "k-2");

    assertThat(other.isError()).isTrue();
    assertThat(other.structuredContent().toString())
        .contains("type=idempotency_key_conflict", "executed=no");
    assertThat(count("ord_2")).isEqualTo("1");
  }

  @Test
  void anAmountOutOfRangeRefundsNothing() {
    CallToolResult negative = refund("ord_4", -1250, "k-4");
    CallToolResult zero = refund("ord_4", 0, "k-5");

    assertThat(negative.isError()).isTrue();
    assertThat(text(negative)).contains("from 1 to 100000000, not -1250", "nothing was refunded");
    assertThat(zero.isError()).isTrue();
    assertThat(count("ord_4")).isEqualTo("0");
  }

  @Test
  void eightRacersWithOneKeyPayOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<CallToolResult>> racers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        racers.add(
            pool.submit(
                () -> {
                  start.await();
                  return refund("ord_3", 700, "k-3");
                }));
      }
      start.countDown();
      List<String> answers = new ArrayList<>();
      for (Future<CallToolResult> racer : racers) {
        answers.add(text(racer.get()));
      }
      assertThat(answers).hasSize(8).allMatch(a -> a.equals(answers.get(0)));
    } finally {
      pool.shutdownNow();
    }
    assertThat(count("ord_3")).isEqualTo("1");
  }
}
