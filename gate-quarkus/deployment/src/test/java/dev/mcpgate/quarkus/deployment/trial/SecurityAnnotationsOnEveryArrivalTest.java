package dev.mcpgate.quarkus.deployment.trial;

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
 * docs/security.md, Authorization and replays: on Quarkus the gate applies a gated method's own
 * security annotations on every arrival, before it claims or replays anything. The existing review
 * test covers {@code @RolesAllowed} on a method; these pin {@code @DenyAll}, {@code @RolesAllowed}
 * on the class and {@code @Authenticated}, with a constant tenant that every caller shares (so a
 * replay would reach the refused caller if the check were skipped).
 */
class SecurityAnnotationsOnEveryArrivalTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(DenyAllTools.class, ClassRolesTools.class))
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

  /**
   * @param user alice or bob over HTTP Basic, or null for an anonymous caller
   */
  static McpSyncClient client(String user) {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    String basic =
        user == null
            ? null
            : Base64.getEncoder()
                .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8));
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, method, uri, body, ctx) -> {
                          if (basic != null) {
                            b.header("Authorization", "Basic " + basic);
                          }
                        })
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  /**
   * @return what the caller was told: the refusal's text when the call threw or is an error
   */
  private static String answer(McpSyncClient c, CallToolRequest r) {
    try {
      CallToolResult res = c.callTool(r);
      return (Boolean.TRUE.equals(res.isError()) ? "refused: " : "") + res.content();
    } catch (RuntimeException e) {
      return "refused: " + e;
    }
  }

  @Test
  void denyAllRefusesEveryCallerAndNothingRuns() {
    McpSyncClient alice = client("alice");
    try {
      CallToolRequest close =
          new CallToolRequest(
              "closeBooks",
              Map.of("year", "2026", "idempotency_key", UUID.randomUUID().toString()));
      assertThat(answer(alice, close)).startsWith("refused:");
      assertThat(answer(alice, close)).startsWith("refused:");
      assertThat(DenyAllTools.CLOSED).hasValue(0);
    } finally {
      alice.closeGracefully();
    }
  }

  @Test
  void aRoleOnTheClassIsCheckedBeforeAReplay() {
    McpSyncClient alice = client("alice");
    McpSyncClient bob = client("bob");
    try {
      CallToolRequest salary =
          new CallToolRequest(
              "salary", Map.of("person", "carol", "idempotency_key", UUID.randomUUID().toString()));
      assertThat(answer(alice, salary)).contains("secret");
      String bobs = answer(bob, salary);
      assertThat(bobs).as("bob lacks the class's role").startsWith("refused:");
      assertThat(bobs).doesNotContain("secret");
    } finally {
      alice.closeGracefully();
      bob.closeGracefully();
    }
  }

  @Test
  void authenticatedIsCheckedBeforeAReplayToAnAnonymousCaller() {
    McpSyncClient alice = client("alice");
    McpSyncClient anonymous = client(null);
    try {
      CallToolRequest note =
          new CallToolRequest(
              "fileNote", Map.of("text", "hi", "idempotency_key", UUID.randomUUID().toString()));
      assertThat(answer(alice, note)).contains("private ref 77");
      String anonymousAnswer = answer(anonymous, note);
      assertThat(anonymousAnswer).startsWith("refused:");
      assertThat(anonymousAnswer).doesNotContain("private ref 77");
      assertThat(DenyAllTools.NOTES).hasValue(1);
    } finally {
      alice.closeGracefully();
      anonymous.closeGracefully();
    }
  }
}
