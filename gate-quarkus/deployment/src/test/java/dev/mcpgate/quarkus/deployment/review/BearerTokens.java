package dev.mcpgate.quarkus.deployment.review;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;

/**
 * Real RS256 bearer tokens for the OIDC tests, signed here and checked by quarkus-oidc with the
 * public key, and MCP clients over the Streamable HTTP transport that send them.
 */
final class BearerTokens {
  private BearerTokens() {}

  /**
   * A key pair of this name, the same for the JUnit and the Quarkus class loader (each initializes
   * the test class): kept in a system property outside the {@code mcpgate} config root.
   */
  static RsaJsonWebKey key(String name) {
    try {
      String property = "oidc-test-key." + name;
      String saved = System.getProperty(property);
      if (saved != null) {
        return (RsaJsonWebKey) JsonWebKey.Factory.newJwk(saved);
      }
      RsaJsonWebKey k = RsaJwkGenerator.generateJwk(2048);
      k.setKeyId(name);
      System.setProperty(property, k.toJson(JsonWebKey.OutputControlLevel.INCLUDE_PRIVATE));
      return k;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The public key as quarkus-oidc's {@code public-key} property takes it. */
  static String publicKey(RsaJsonWebKey key) {
    return Base64.getEncoder().encodeToString(key.getPublicKey().getEncoded());
  }

  /**
   * @param iss the issuer, or null for none
   * @param name the {@code name} claim, or null for none
   */
  static String token(RsaJsonWebKey key, String iss, String sub, String name) {
    try {
      JwtClaims c = new JwtClaims();
      if (iss != null) {
        c.setIssuer(iss);
      }
      c.setSubject(sub);
      if (name != null) {
        c.setClaim("name", name);
      }
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

  /** A client of the test application that sends the token, and these headers, with each call. */
  static McpSyncClient client(String bearer, Map<String, String> headers) {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, method, uri, body, ctx) -> {
                          b.header("Authorization", "Bearer " + bearer);
                          headers.forEach(b::header);
                        })
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  /** A refund of the order by card under the key ({@code ReviewTools.refundBy}). */
  static CallToolRequest refund(String order, String key) {
    return new CallToolRequest(
        "refundBy", Map.of("order_id", order, "route", "TO_CARD", "idempotency_key", key));
  }
}
