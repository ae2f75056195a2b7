package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (medium-low, a config mistake): mcpgate.tenant.constant (meant for a one-user stdio
 * server) left set on an HTTP server that authenticates users wins over their principals without a
 * word: alice and bob share one tenant, so bob's call with alice's key and arguments is answered
 * with alice's stored result. And the gate (priority 100) runs outside Quarkus' @RolesAllowed
 * interceptor (1000): a replay is answered before any authorization check, so bob, who lacks the
 * role, reads an admin's result. Expected: bob is refused (403 / an error), never handed alice's
 * result; e.g. the gate inside the security interceptors, and the startup (or each call) refusing
 * a constant tenant when callers are authenticated as someone.
 */
class ConstantTenantWithUsersReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(AdminTools.class, ReviewTools.class, ReviewTools.Payment.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "desk")
          .overrideConfigKey("quarkus.http.auth.basic", "true")
          .overrideConfigKey("quarkus.security.users.embedded.enabled", "true")
          .overrideConfigKey("quarkus.security.users.embedded.plain-text", "true")
          .overrideConfigKey("quarkus.security.users.embedded.users.alice", "alice-pw")
          .overrideConfigKey("quarkus.security.users.embedded.roles.alice", "admin")
          .overrideConfigKey("quarkus.security.users.embedded.users.bob", "bob-pw");

  static McpSyncClient client(String user) {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    String basic =
        Base64.getEncoder()
            .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8));
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, method, uri, body, ctx) -> b.header("Authorization", "Basic " + basic))
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  @Test
  void anotherUserWithoutTheRoleIsNotHandedTheAdminsResult() {
    McpSyncClient alice = client("alice");
    McpSyncClient bob = client("bob");
    try {
      String account = UUID.randomUUID().toString();
      CallToolRequest payout =
          new CallToolRequest(
              "payout", Map.of("account", account, "idempotency_key", UUID.randomUUID().toString()));
      CallToolResult alices = alice.callTool(payout);
      CallToolResult bobs;
      try {
        bobs = bob.callTool(payout);
      } catch (RuntimeException refused) {
        return; // refused: what is expected
      }

      assertThat(alices.isError()).as("%s", alices).isFalse();
      assertThat(bobs.isError()).as("bob, without the admin role, got: %s", bobs).isTrue();
    } finally {
      alice.closeGracefully();
      bob.closeGracefully();
    }
  }
}
