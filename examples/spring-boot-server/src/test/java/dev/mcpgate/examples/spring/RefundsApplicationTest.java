package dev.mcpgate.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** The example server as a user runs it, called by the MCP SDK's client over Streamable HTTP. */
class RefundsApplicationTest {

  private static String text(McpSchema.CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  @Test
  void aRetriedRefundIsPaidOnceAndTheReceiptCarriesTheDownstreamKey() {
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(RefundsApplication.class).properties("server.port=0").run()) {
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                      .endpoint("/mcp")
                      .build())
              .build();
      try {
        client.initialize();
        Map<String, Object> refund =
            Map.of("orderId", "ord_9f2", "amountCents", 500, "idempotency_key", "k-1");
        String first = text(client.callTool(new CallToolRequest("refund_order", refund)));
        String retry = text(client.callTool(new CallToolRequest("refund_order", refund)));
        String count =
            text(
                client.callTool(
                    new CallToolRequest("count_refunds", Map.of("orderId", "ord_9f2"))));
        String receipt =
            text(
                client.callTool(
                    new CallToolRequest(
                        "send_receipt", Map.of("orderId", "ord_9f2", "idempotency_key", "r-1"))));

        assertThat(first).contains("500 cents for ord_9f2");
        assertThat(retry).isEqualTo(first);
        assertThat(count).isEqualTo("1");
        assertThat(receipt).matches(".*sent as mcpgate-[0-9a-f]{40}\"?");
      } finally {
        client.closeGracefully();
      }
    }
  }

  @Test
  void concurrentRefundsEachReportTheirOwnRow() throws Exception {
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(RefundsApplication.class)
            .properties(
                "server.port=0", "spring.datasource.url=jdbc:h2:mem:refunds-ids;DB_CLOSE_DELAY=-1")
            .run()) {
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<McpSyncClient> clients = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          McpSyncClient c =
              McpClient.sync(
                      HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                          .endpoint("/mcp")
                          .build())
                  .build();
          c.initialize();
          clients.add(c);
        }
        List<Future<String>> calls = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
          int n = i;
          McpSyncClient c = clients.get(i % clients.size());
          calls.add(
              pool.submit(
                  () ->
                      text(
                          c.callTool(
                              new CallToolRequest(
                                  "refund_order",
                                  Map.of(
                                      "orderId",
                                      "ord_" + n,
                                      "amountCents",
                                      100 + n,
                                      "idempotency_key",
                                      "k-ids-" + n))))));
        }
        Pattern said = Pattern.compile("refund (\\d+): (\\d+) cents for (ord_\\d+)");
        java.util.Set<Long> ids = new java.util.HashSet<>();
        for (Future<String> call : calls) {
          Matcher m = said.matcher(call.get(30, TimeUnit.SECONDS));
          assertThat(m.find()).isTrue();
          long id = Long.parseLong(m.group(1));
          ids.add(id);
          // the id it reports is the row this call wrote
          assertThat(
                  jdbc.queryForObject(
                      "SELECT order_id FROM refunds WHERE id = ?", String.class, id))
              .isEqualTo(m.group(3));
        }
        assertThat(ids).hasSize(24);
      } finally {
        clients.forEach(McpSyncClient::closeGracefully);
        pool.shutdownNow();
      }
    }
  }
}
