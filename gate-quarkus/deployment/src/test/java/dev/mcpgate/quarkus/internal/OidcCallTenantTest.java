package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.IdTokenCredential;
import io.quarkus.oidc.UserInfo;
import io.quarkus.oidc.runtime.OidcJwtCallerPrincipal;
import io.quarkus.oidc.runtime.OidcUtils;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.util.KeyUtils;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.jose4j.jwt.JwtClaims;
import org.junit.jupiter.api.Test;

/** The tenant of quarkus-oidc identities built with its own types and smallrye-jwt's. */
class OidcCallTenantTest {

  /**
   * Within one issuer, a subject and a name are spelled apart: a user without a subject whose name
   * (here preferred_username, chosen by the user) is another user's subject is another tenant.
   */
  @Test
  void aSubjectlessUsersNameIsNotAnotherUsersSubject() throws Exception {
    String victim =
        CallTenant.tenantOf(
            login("https://idp.example", "8f14e45f-ceea-467a-9575-000000000001", null, "v", null));
    String other =
        CallTenant.tenantOf(
            login("https://idp.example", null, null, "o", "8f14e45f-ceea-467a-9575-000000000001"));
    assertThat(other).isNotEqualTo(victim);
  }

  /**
   * quarkus-oidc signs the internal ID token of a provider without ID tokens with smallrye-jwt's
   * Jwt.claims(), which adds smallrye.jwt.new-token.issuer as iss when the application sets it (an
   * application that issues its own tokens): the OIDC tenant still tells GitHub's user from
   * Spotify's of one name.
   */
  @Test
  void internalIdTokensOfTwoProvidersWithTheApplicationsIssuerAreTwoTenants() throws Exception {
    System.setProperty("smallrye.jwt.new-token.issuer", "https://app.example");
    try {
      String github = CallTenant.tenantOf(internalLogin("github", "Jane Doe", "{\"id\":1}"));
      String spotify = CallTenant.tenantOf(internalLogin("spotify", "Jane Doe", "{\"id\":\"x\"}"));
      assertThat(github).isEqualTo("principal:%oidc:github:name:https://app.example#Jane Doe");
      assertThat(spotify).as("another provider's user").isNotEqualTo(github);
    } finally {
      System.clearProperty("smallrye.jwt.new-token.issuer");
    }
  }

  private static SecurityIdentity login(
      String iss, String sub, String name, String uid, String preferredUsername) throws Exception {
    JwtClaims c = new JwtClaims();
    c.setIssuer(iss);
    if (sub != null) {
      c.setSubject(sub);
    }
    if (name != null) {
      c.setClaim("name", name);
    }
    c.setClaim("uid", uid);
    if (preferredUsername != null) {
      c.setClaim("preferred_username", preferredUsername);
    }
    c.setExpirationTimeMinutesInTheFuture(5);
    AccessTokenCredential token = new AccessTokenCredential("a.jwt." + uid);
    return QuarkusSecurityIdentity.builder()
        .setPrincipal(new OidcJwtCallerPrincipal(c, token, name != null ? "name" : null))
        .addCredential(token)
        .addAttribute(OidcUtils.TENANT_ID_ATTRIBUTE, "Default")
        .build();
  }

  /** As CodeAuthenticationMechanism.generateInternalIdToken and OidcIdentityProvider build it. */
  private static SecurityIdentity internalLogin(String oidcTenant, String name, String userInfo)
      throws Exception {
    String signed =
        Jwt.claims()
            .audience(oidcTenant + "-client")
            .expiresIn(300)
            .jws()
            .header("internal", true)
            .sign(KeyUtils.createSecretKeyFromSecret("0123456789abcdef0123456789abcdef"));
    JwtClaims claims =
        JwtClaims.parse(
            new String(
                Base64.getUrlDecoder().decode(signed.split("\\.")[1]), StandardCharsets.UTF_8));
    claims.setClaim("name", name); // copied from the user info (principal-claim=name)
    IdTokenCredential idToken = new IdTokenCredential(signed, true);
    return QuarkusSecurityIdentity.builder()
        .setPrincipal(new OidcJwtCallerPrincipal(claims, idToken, "name"))
        .addCredential(idToken)
        .addCredential(new AccessTokenCredential("opaque-" + oidcTenant))
        .addAttribute(OidcUtils.TENANT_ID_ATTRIBUTE, oidcTenant)
        .addAttribute(OidcUtils.USER_INFO_ATTRIBUTE, new UserInfo(userInfo))
        .build();
  }
}
