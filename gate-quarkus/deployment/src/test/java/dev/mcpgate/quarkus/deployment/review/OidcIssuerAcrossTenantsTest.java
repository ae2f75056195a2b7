package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.oidc.TenantResolver;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
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
  static final RsaJsonWebKey KEY_A = key("a");
  static final RsaJsonWebKey KEY_B = key("b");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(ReviewTools.class, ReviewTools.Payment.class, ByHeader.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey(
              "quarkus.oidc.a.public-key",
              Base64.getEncoder().encodeToString(KEY_A.getPublicKey().getEncoded()))
          .overrideConfigKey(
              "quarkus.oidc.b.public-key",
              Base64.getEncoder().encodeToString(KEY_B.getPublicKey().getEncoded()))
          .overrideConfigKey("quarkus.oidc.b.token.issuer", "https://b.example");

  /** Picks the OIDC tenant by a header (a customer's host name, say). */
  @ApplicationScoped
  public static class ByHeader implements TenantResolver {
    @Override
    public String resolve(RoutingContext context) {
      return context.request().getHeader("X-Idp");
    }
  }

  private static RsaJsonWebKey key(String name) {
    try {
      String prop = "oidc-issuer-across-tenants-review." + name;
      String saved = System.getProperty(prop);
      if (saved != null) {
        return (RsaJsonWebKey) JsonWebKey.Factory.newJwk(saved);
      }
      RsaJsonWebKey k = RsaJwkGenerator.generateJwk(2048);
      k.setKeyId(name);
      System.setProperty(prop, k.toJson(JsonWebKey.OutputControlLevel.INCLUDE_PRIVATE));
      return k;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String token(RsaJsonWebKey key, String iss, String sub) {
    try {
      JwtClaims c = new JwtClaims();
      c.setIssuer(iss);
      c.setSubject(sub);
      c.setIssuedAtToNow();
      c.setExpirationTimeMinutesInTheFuture(10);
      c.setGeneratedJwtId();
      JsonWebSignature jws = new JsonWebSignature();
      jws.setPayload(c.toJson());
      jws.setKey(key.getPrivateKey());
      jws.setKeyIdHeaderValue(key.getKeyId());
      jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
      return jws.getCompactSerialization();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static McpSyncClient client(String idp, String bearer) {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, method, uri, body, ctx) ->
                            b.header("Authorization", "Bearer " + bearer).header("X-Idp", idp))
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  static CallToolRequest refund(String order, String key) {
    return new CallToolRequest(
        "refundBy", Map.of("order_id", order, "route", "TO_CARD", "idempotency_key", key));
  }

  @Test
  void aTokenOfOneOidcTenantNamingAnotherTenantsIssuerIsNotThatIssuersUser() {
    String order = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    McpSyncClient bob = client("b", token(KEY_B, "https://b.example", "bob"));
    McpSyncClient mallory = client("a", token(KEY_A, "https://b.example", "bob"));
    try {
      CallToolResult bobs = bob.callTool(refund(order, key));
      assertThat(bobs.isError()).as("%s", bobs).isFalse();
      CallToolResult mallorys = mallory.callTool(refund(order, key));
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
