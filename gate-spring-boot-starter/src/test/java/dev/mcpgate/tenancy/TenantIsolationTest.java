package dev.mcpgate.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.jdbc.TestDatabases;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The tenant is a security boundary: a real Spring Boot application behind Spring Security (HTTP
 * Basic, alice and bob; bearer JWTs of two issuers) on a real PostgreSQL, with its gated tool as a
 * SYNC and as an ASYNC tool specification (Spring AI's WebMVC Streamable HTTP transport), called by
 * real MCP clients: the same name from two issuers is two tenants. The other tenant tests (two
 * users with the same key, a header never reaching a principal's tenant, a source that finds
 * nothing refusing the call, a repeated header) are {@code StackContract}'s, run on WebMVC by
 * {@code WebMvcStackTest} and on WebFlux by gate-spring-boot-starter-webflux-tests.
 */
class TenantIsolationTest {

  /** A fresh claims table per application, so that its rows are this test's rows. */
  private static ConfigurableApplicationContext server(
      String type, String table, String... properties) {
    TestDatabases.Target pg = TestDatabases.postgres();
    SpringApplicationBuilder b =
        new SpringApplicationBuilder(
                TransferServer.class,
                "ASYNC".equals(type)
                    ? TransferServer.AsyncTools.class
                    : TransferServer.SyncTools.class)
            .properties(
                "server.port=0",
                "spring.datasource.url=" + pg.url(),
                "mcpgate.create-schema-if-missing=true",
                "mcpgate.table-name=" + table,
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "spring.ai.mcp.server.type=" + type);
    if (pg.user() != null) {
      b.properties(
          "spring.datasource.username=" + pg.user(), "spring.datasource.password=" + pg.password());
    }
    return b.properties(properties).run();
  }

  /**
   * @param user alice or bob (HTTP Basic), or null for an anonymous caller
   * @param tenantHeader the X-Tenant header, or null for none
   */
  private static McpSyncClient client(
      ConfigurableApplicationContext app, String user, String tenantHeader) {
    return client(app, user, null, tenantHeader == null ? List.of() : List.of(tenantHeader));
  }

  /**
   * @param user alice or bob (HTTP Basic), or null
   * @param bearer a bearer token ({@link TransferServer#bearer}), or null
   * @param tenantHeaders each X-Tenant header line the client sends
   */
  private static McpSyncClient client(
      ConfigurableApplicationContext app, String user, String bearer, List<String> tenantHeaders) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    McpSyncClient c =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (request, method, uri, body, ctx) -> {
                          if (user != null) {
                            request.header(
                                "Authorization",
                                "Basic "
                                    + Base64.getEncoder()
                                        .encodeToString(
                                            (user + ":" + user + "-pw")
                                                .getBytes(StandardCharsets.UTF_8)));
                          }
                          if (bearer != null) {
                            request.header("Authorization", "Bearer " + bearer);
                          }
                          for (String line : tenantHeaders) {
                            request.header("X-Tenant", line); // adds a line, replaces none
                          }
                        })
                    .build())
            .build();
    c.initialize();
    return c;
  }

  private static CallToolResult transfer(McpSyncClient client, String key, int cents) {
    return client.callTool(
        new CallToolRequest(
            "transfer_funds", Map.of("to", "acct_carol", "cents", cents, "idempotency_key", key)));
  }

  private static boolean replayed(CallToolResult r) {
    return r.meta() != null && Boolean.TRUE.equals(r.meta().get("dev.mcpgate/replayed"));
  }

  private static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  private static List<String> tenants(ConfigurableApplicationContext app, String table) {
    return app.getBean(JdbcTemplate.class)
        .queryForList("SELECT tenant FROM " + table + " ORDER BY tenant", String.class);
  }

  private static String table(String what, String type) {
    return "mcpgate_tenancy_" + what + "_" + type.toLowerCase() + "_" + System.nanoTime();
  }

  private static void close(List<McpSyncClient> clients) {
    clients.forEach(McpSyncClient::closeGracefully);
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void theSameNameFromTwoIssuersIsTwoTenants(String type) {
    String table = table("issuers", type);
    try (ConfigurableApplicationContext app = server(type, table)) {
      List<McpSyncClient> clients = new ArrayList<>();
      try {
        McpSyncClient aliceOfA =
            client(app, null, TransferServer.bearer("https://idp-a.example", "alice"), List.of());
        McpSyncClient aliceOfB =
            client(app, null, TransferServer.bearer("https://idp-b.example", "alice"), List.of());
        McpSyncClient basicAlice = client(app, "alice", null);
        clients.addAll(List.of(aliceOfA, aliceOfB, basicAlice));
        int before = TransferServer.TRANSFERS.get();

        CallToolResult fromA = transfer(aliceOfA, "k1", 100);
        CallToolResult fromB = transfer(aliceOfB, "k1", 100);
        CallToolResult fromBasic = transfer(basicAlice, "k1", 100);
        CallToolResult retryA = transfer(aliceOfA, "k1", 100);

        assertThat(fromA.isError()).as(text(fromA)).isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(fromB)).as("idp-b's alice got idp-a's alice's result").isFalse();
        assertThat(replayed(fromBasic)).as("the issuer-less alice got a JWT alice's").isFalse();
        assertThat(replayed(retryA)).as("still gated within one issuer's alice").isTrue();
        assertThat(TransferServer.TRANSFERS.get()).isEqualTo(before + 3);
        assertThat(tenants(app, table))
            .containsExactly(
                "principal:alice",
                "principal:https://idp-a.example#alice",
                "principal:https://idp-b.example#alice");
      } finally {
        close(clients);
      }
    }
  }
}
