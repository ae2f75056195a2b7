package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkus.test.QuarkusUnitTest;
import java.util.Map;
import java.util.UUID;
import org.jose4j.jwk.RsaJsonWebKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tenant of a bearer token's user, end to end: real JWTs, signed here and checked by
 * quarkus-oidc with a local public key, through the MCP Streamable HTTP transport, so that the
 * principal is quarkus-oidc's own. The application names principals by their display name ({@code
 * quarkus.oidc.token.principal-claim=name}), as quarkus-oidc's presets for Google, GitHub and
 * LinkedIn do: a user's refreshed token is one tenant, two issuers' users of one name are two, and
 * so are two users of one issuer and one display name (their subjects differ).
 */
class OidcTenantTest {
  static final RsaJsonWebKey KEY = BearerTokens.key("bearer");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(ReviewTools.class, ReviewTools.Payment.class, BearerTokens.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          // an OIDC tenant of its own (the build turns the default one off for the other tests)
          .overrideConfigKey("quarkus.oidc.bearer.public-key", BearerTokens.publicKey(KEY))
          .overrideConfigKey("quarkus.oidc.bearer.tenant-paths", "/*")
          .overrideConfigKey("quarkus.oidc.bearer.token.principal-claim", "name");

  static String token(String iss, String sub, String name) {
    return BearerTokens.token(KEY, iss, sub, name);
  }

  static McpSyncClient client(String bearer) {
    return BearerTokens.client(bearer, Map.of());
  }

  static CallToolRequest refund(String order, String key) {
    return BearerTokens.refund(order, key);
  }

  static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void oneLoginsRefreshedTokenIsOneTenant() throws Exception {
    String order = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    McpSyncClient first = client(token("https://idp.example/realms/a", "sub-alice", "Alice"));
    CallToolResult ran = first.callTool(refund(order, key));
    first.closeGracefully();
    Thread.sleep(1100); // another iat
    McpSyncClient refreshed = client(token("https://idp.example/realms/a", "sub-alice", "Alice"));
    CallToolResult retry = refreshed.callTool(refund(order, key));
    refreshed.closeGracefully();
    assertThat(ran.isError()).as("%s", ran).isFalse();
    assertThat(retry.meta()).as("%s", retry).containsEntry("dev.mcpgate/replayed", true);
    assertThat(ReviewTools.runs(order)).isEqualTo(1);
  }

  @Test
  void twoIssuersAliceAreTwoTenants() {
    String order = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    McpSyncClient a = client(token("https://a.example", "alice", "alice"));
    McpSyncClient b = client(token("https://b.example", "alice", "alice"));
    try {
      CallToolResult ra = a.callTool(refund(order, key));
      CallToolResult rb = b.callTool(refund(order, key));
      assertThat(ra.isError()).as("%s", ra).isFalse();
      assertThat(rb.meta() == null ? Map.of() : rb.meta())
          .as("%s", rb)
          .doesNotContainKey("dev.mcpgate/replayed");
      assertThat(ReviewTools.runs(order)).isEqualTo(2);
    } finally {
      a.closeGracefully();
      b.closeGracefully();
    }
  }

  @Test
  void twoUsersOfOneIssuerWithOneDisplayNameAreTwoTenants() {
    String order = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    McpSyncClient victim = client(token("https://accounts.example", "sub-1111", "Jane Doe"));
    McpSyncClient other = client(token("https://accounts.example", "sub-2222", "Jane Doe"));
    try {
      CallToolResult victims = victim.callTool(refund(order, key));
      assertThat(victims.isError()).as("%s", victims).isFalse();
      CallToolResult others = other.callTool(refund(order, key));
      assertThat(others.meta() == null ? Map.of() : others.meta())
          .as("another user (another sub) must not be handed: %s", text(others))
          .doesNotContainKey("dev.mcpgate/replayed");
    } finally {
      victim.closeGracefully();
      other.closeGracefully();
    }
  }
}
