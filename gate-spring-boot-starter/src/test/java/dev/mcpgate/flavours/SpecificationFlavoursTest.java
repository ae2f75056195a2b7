package dev.mcpgate.flavours;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.jdbc.TestDatabases;
import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The four kinds of tool specification Spring AI makes (sync and async, stateful and stateless),
 * each gated by the starter with no code and called by the MCP SDK's client over HTTP, on a real
 * PostgreSQL: a retry replays, other arguments with the key conflict, the read-only tool is left
 * alone, and the startup survey counts it as a read.
 */
class SpecificationFlavoursTest {

  private static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "SYNC, STREAMABLE, io.modelcontextprotocol.server.McpServerFeatures$SyncToolSpecification",
    "ASYNC, STREAMABLE, io.modelcontextprotocol.server.McpServerFeatures$AsyncToolSpecification",
    "SYNC, STATELESS,"
        + " io.modelcontextprotocol.server.McpStatelessServerFeatures$SyncToolSpecification",
    "ASYNC, STATELESS,"
        + " io.modelcontextprotocol.server.McpStatelessServerFeatures$AsyncToolSpecification"
  })
  void eachFlavourIsGatedThroughARealClient(String type, String protocol, String specClass)
      throws Exception {
    TestDatabases.Target pg = TestDatabases.postgres();
    SpringApplicationBuilder b =
        new SpringApplicationBuilder(
                FlavourServer.class,
                type.equals("SYNC")
                    ? FlavourServer.SyncTools.class
                    : FlavourServer.AsyncTools.class)
            .properties(
                "server.port=0",
                "spring.datasource.url=" + pg.url(),
                "spring.main.banner-mode=off",
                "mcpgate.create-schema-if-missing=true",
                "mcpgate.table-name=mcpgate_flavour_claims",
                "mcpgate.tenant.header=X-Tenant",
                "mcpgate.tenant.sources=header",
                "mcpgate.require-gated-writes=true",
                "spring.ai.mcp.server.type=" + type,
                "spring.ai.mcp.server.protocol=" + protocol);
    if (pg.user() != null) {
      b.properties(
          "spring.datasource.username=" + pg.user(), "spring.datasource.password=" + pg.password());
    }
    PrintStream out = System.out;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    System.setOut(
        new PrintStream(
            new java.io.OutputStream() {
              @Override
              public void write(int c) {
                out.write(c);
                log.write(c);
              }
            },
            true));
    ConfigurableApplicationContext app;
    try {
      app = b.run();
    } finally {
      System.setOut(out);
    }
    try (app) {
      // Spring AI made the specifications of this flavour, and the starter gated them
      assertThat(
              app.getBeansOfType(List.class).values().stream()
                  .filter(l -> !l.isEmpty())
                  .map(l -> l.get(0).getClass().getName()))
          .contains(specClass);
      String startup = log.toString(StandardCharsets.UTF_8);
      assertThat(startup)
          .contains("2 tools seen, 1 gated, 1 read-only, 0 declared safe," + " 0 ungated writes");
      assertThat(startup)
          .as("no gated tool takes a decimal: nothing to warn about")
          .doesNotContain("decimal");

      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      String tenant = "flavour-" + type + "-" + protocol + "-" + System.nanoTime();
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                      .endpoint("/mcp")
                      .httpRequestCustomizer(
                          (request, method, uri, body, ctx) -> request.header("X-Tenant", tenant))
                      .build())
              .build();
      try {
        client.initialize();
        Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
        client.listTools().tools().forEach(t -> tools.put(t.name(), t));
        assertThat(tools.get("refund_order").inputSchema().get("properties").toString())
            .contains("idempotency_key");
        assertThat(tools.get("get_order").inputSchema().get("properties").toString())
            .doesNotContain("idempotency_key");

        int before = FlavourServer.REFUNDS.get();
        Map<String, Object> args =
            Map.of(
                "orderId", "ord_1", "amountCents", 500, "idempotency_key", "k-" + type + protocol);
        CallToolResult first = client.callTool(new CallToolRequest("refund_order", args));
        CallToolResult retry = client.callTool(new CallToolRequest("refund_order", args));
        CallToolResult other =
            client.callTool(
                new CallToolRequest(
                    "refund_order",
                    Map.of(
                        "orderId",
                        "ord_1",
                        "amountCents",
                        900,
                        "idempotency_key",
                        "k-" + type + protocol)));

        assertThat(first.isError()).as(text(first)).isNotEqualTo(Boolean.TRUE);
        assertThat(text(first)).contains("500 cents for ord_1");
        assertThat(text(retry)).isEqualTo(text(first));
        assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
        assertThat(other.isError()).isTrue();
        @SuppressWarnings("unchecked")
        Map<String, Object> error =
            (Map<String, Object>) ((Map<String, Object>) other.structuredContent()).get("error");
        assertThat(error).containsEntry("type", McpGateErrors.KEY_CONFLICT);
        assertThat(FlavourServer.REFUNDS.get()).as("ran once").isEqualTo(before + 1);
        assertThat(
                text(client.callTool(new CallToolRequest("get_order", Map.of("orderId", "ord_1")))))
            .isEqualTo("order ord_1");
      } finally {
        client.closeGracefully();
      }
    }
  }
}
