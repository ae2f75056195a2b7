package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkus.test.QuarkusUnitTest;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
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
  static final RsaJsonWebKey KEY = key();

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(ReviewTools.class, ReviewTools.Payment.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          // an OIDC tenant of its own (the build turns the default one off for the other tests)
          .overrideConfigKey(
              "quarkus.oidc.bearer.public-key",
              Base64.getEncoder().encodeToString(KEY.getPublicKey().getEncoded()))
          .overrideConfigKey("quarkus.oidc.bearer.tenant-paths", "/*")
          .overrideConfigKey("quarkus.oidc.bearer.token.principal-claim", "name");

  private static RsaJsonWebKey key() {
    try {
      // one key for the JUnit and the Quarkus class loader, which each initialize this class
      String saved = System.getProperty("oidc-tenant-test.jwk");
      if (saved != null) {
        return (RsaJsonWebKey) org.jose4j.jwk.JsonWebKey.Factory.newJwk(saved);
      }
      RsaJsonWebKey k = RsaJwkGenerator.generateJwk(2048);
      k.setKeyId("review");
      System.setProperty(
          "oidc-tenant-test.jwk",
          k.toJson(org.jose4j.jwk.JsonWebKey.OutputControlLevel.INCLUDE_PRIVATE));
      return k;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String token(String iss, String sub, String name) {
    try {
      JwtClaims c = new JwtClaims();
      if (iss != null) {
        c.setIssuer(iss);
      }
      c.setSubject(sub);
      c.setClaim("name", name);
      c.setIssuedAtToNow();
      c.setExpirationTimeMinutesInTheFuture(10);
      c.setGeneratedJwtId();
      JsonWebSignature jws = new JsonWebSignature();
      jws.setPayload(c.toJson());
      jws.setKey(KEY.getPrivateKey());
      jws.setKeyIdHeaderValue(KEY.getKeyId());
      jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
      return jws.getCompactSerialization();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static McpSyncClient client(String bearer) {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, method, uri, body, ctx) ->
                            b.header("Authorization", "Bearer " + bearer))
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
