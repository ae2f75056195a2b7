package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.oidc.TenantResolver;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.UUID;
import org.jose4j.jwk.RsaJsonWebKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two quarkus-oidc tenants, each trusting its own key (a multi-tenant application whose customers
 * bring their identity provider). Tenant {@code b} pins its issuer; tenant {@code a} is configured
 * with a public key only, so quarkus-oidc checks no {@code iss} for it. Whoever signs for {@code a}
 * can write {@code iss} = b's issuer and {@code sub} = a b user's subject: the gate's tenant names
 * the OIDC tenant that checked the token ({@code tenant-id}), so that caller is not the b user, and
 * is never handed the b user's stored result.
 */
class OidcIssuerAcrossTenantsTest {
  static final RsaJsonWebKey KEY_A = BearerTokens.key("a");
  static final RsaJsonWebKey KEY_B = BearerTokens.key("b");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      ReviewTools.class,
                      ReviewTools.Payment.class,
                      ByHeader.class,
                      BearerTokens.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("quarkus.oidc.a.public-key", BearerTokens.publicKey(KEY_A))
          .overrideConfigKey("quarkus.oidc.b.public-key", BearerTokens.publicKey(KEY_B))
          .overrideConfigKey("quarkus.oidc.b.token.issuer", "https://b.example");

  /** Picks the OIDC tenant by a header (a customer's host name, say). */
  @ApplicationScoped
  public static class ByHeader implements TenantResolver {
    @Override
    public String resolve(RoutingContext context) {
      return context.request().getHeader("X-Idp");
    }
  }

  private static McpSyncClient client(String idp, String bearer) {
    return BearerTokens.client(bearer, Map.of("X-Idp", idp));
  }

  @Test
  void aTokenOfOneOidcTenantNamingAnotherTenantsIssuerIsNotThatIssuersUser() {
    String order = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    McpSyncClient bob = client("b", BearerTokens.token(KEY_B, "https://b.example", "bob", null));
    McpSyncClient mallory =
        client("a", BearerTokens.token(KEY_A, "https://b.example", "bob", null));
    try {
      CallToolResult bobs = bob.callTool(BearerTokens.refund(order, key));
      assertThat(bobs.isError()).as("%s", bobs).isFalse();
      CallToolResult mallorys = mallory.callTool(BearerTokens.refund(order, key));
      assertThat(mallorys.isError()).as("tenant a accepted its token: %s", mallorys).isFalse();
      assertThat(mallorys.meta() == null ? Map.of() : mallorys.meta())
          .as("a caller checked by OIDC tenant a must not be handed tenant b's user's result")
          .doesNotContainKey("dev.mcpgate/replayed");
    } finally {
      bob.closeGracefully();
      mallory.closeGracefully();
    }
  }
}
