package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.TenantResolver;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's command: after a refund, its retries and a reuse of its key with other
 * arguments, {@code status} says in plain words what happened, and {@code --search} finds it.
 */
class StatusTest {
  @TempDir
  Path tmp;

  private static String run(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void statusTellsWhatHappenedToOneKey() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    try (ExampleServer server = new ExampleServer(new ExampleServer.Config(url, null, null,
        TenantResolver.fromTransportContext("tenant")));
        Transports.Http http = Transports.http(0, server.tools())) {
      McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport
          .builder("http://127.0.0.1:" + http.port()).endpoint("/mcp")
          .httpRequestCustomizer((b, m, u, body, ctx) -> b.header("X-Tenant", "acme")).build())
          .build();
      client.initialize();
      Map<String, Object> refund = Map.of("order_id", "ord_9f2", "amount_cents", 500,
          "idempotency_key", "k-status");
      for (int i = 0; i < 4; i++) {
        client.callTool(new CallToolRequest("refund_order", refund));
      }
      client.callTool(new CallToolRequest("refund_order", Map.of("order_id", "ord_9f2",
          "amount_cents", 900, "idempotency_key", "k-status")));
      client.closeGracefully();
    }   // closing the server flushes its audit trail

    String status = run("status", "--jdbc-url", url, "--tenant", "acme", "--tool",
        "refund_order", "--key", "k-status");
    assertThat(status).contains("claim: completed by attempt 1", "result stored",
        "history: ran once, last by attempt 1; replayed 3 times; conflict 1 time",
        "EXECUTED (attempt 1)", "CONFLICT");

    String found = run("status", "--jdbc-url", url, "--tenant", "acme", "--search",
        "amount_cents");
    assertThat(found).contains("5 record(s)", "refund_order", "key k-status");
    assertThat(run("status", "--jdbc-url", url, "--tenant", "other", "--tool", "refund_order",
        "--key", "k-status")).contains("claim: none", "history: no audit records");
  }
}
