package dev.mcpgate.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** The example server as a user runs it, called by the MCP SDK's client over Streamable HTTP. */
class RefundsApplicationTest {

  private static String text(McpSchema.CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  @Test
  void aRetriedRefundIsPaidOnceAndTheReceiptCarriesTheDownstreamKey() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(
        RefundsApplication.class).properties("server.port=0").run()) {
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport
          .builder("http://127.0.0.1:" + port).endpoint("/mcp").build()).build();
      try {
        client.initialize();
        Map<String, Object> refund = Map.of("orderId", "ord_9f2", "amountCents", 500,
            "idempotency_key", "k-1");
        String first = text(client.callTool(new CallToolRequest("refund_order", refund)));
        String retry = text(client.callTool(new CallToolRequest("refund_order", refund)));
        String count = text(client.callTool(new CallToolRequest("count_refunds",
            Map.of("orderId", "ord_9f2"))));
        String receipt = text(client.callTool(new CallToolRequest("send_receipt",
            Map.of("orderId", "ord_9f2", "idempotency_key", "r-1"))));

        assertThat(first).contains("500 cents for ord_9f2");
        assertThat(retry).isEqualTo(first);
        assertThat(count).isEqualTo("1");
        assertThat(receipt).matches(".*sent as mcpgate-[0-9a-f]{40}\"?");
      } finally {
        client.closeGracefully();
      }
    }
  }
}
