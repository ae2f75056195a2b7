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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (medium): a gated @Tool method called from Java inside another gated tool's call is gated
 * too (ArC intercepts it), and its key is read from CurrentCall: the OUTER tools/call's _meta. Each
 * inner call of one outer run then claims (tenant, charge, outer key): the second charge of two
 * equal lines is answered as a replay of the first and does not run, and the outer tool, which
 * cannot tell, reports two charges. Expected: two charges (an inner Java call is not an MCP call
 * and must not borrow another call's key), or a loud refusal.
 */
class NestedCallReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      ReviewOrders.class,
                      ReviewCharges.class,
                      ReviewTools.class,
                      ReviewTools.Payment.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review");

  @Test
  void twoChargesOfOneOrderBothRun() {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    try {
      String account = UUID.randomUUID().toString();
      CallToolResult result =
          client.callTool(
              new CallToolRequest(
                  "order",
                  Map.of("account", account, "line_cents", 500),
                  Map.of("dev.mcpgate/idempotency-key", UUID.randomUUID().toString())));

      assertThat(result.isError()).as("%s", result).isFalse();
      assertThat(ReviewTools.runs("charge:" + account))
          .as("charges run; the order answered %s", result)
          .isEqualTo(2);
    } finally {
      client.closeGracefully();
    }
  }
}
