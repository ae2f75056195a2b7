package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Review: gated tools declared in ways the build accepts. */
class DeclarationsReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      FinalTools.class,
                      ReviewTools.class,
                      ReviewTools.Payment.class,
                      TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review");

  private static final TestClient CLIENT = new TestClient();

  static McpSyncClient client() {
    return CLIENT.get();
  }

  @AfterAll
  static void close() {
    CLIENT.close();
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
