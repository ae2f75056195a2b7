package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Review: gated tools declared in ways the build accepts. */
class DeclarationsReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(FinalTools.class, ReviewTools.class, ReviewTools.Payment.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review");

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
  static void close() {
    if (client != null) {
      client.closeGracefully();
    }
  }

  @Test
  void aFinalToolMethodIsGated() {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "refundFinal",
            Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
    CallToolResult first = client().callTool(call);
    CallToolResult retry = client().callTool(call);

    assertThat(ReviewTools.runs(order)).as("first %s, retry %s", first, retry).isEqualTo(1);
  }
}
