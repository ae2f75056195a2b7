package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.IdTokenCredential;
import io.quarkus.oidc.runtime.OidcJwtCallerPrincipal;
import io.quarkus.oidc.runtime.OidcUtils;
import io.quarkus.security.credential.CertificateCredential;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.Principal;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jose4j.jwt.JwtClaims;
import org.junit.jupiter.api.Test;

/**
 * The tenant of an authenticated identity, spelled as the Spring Boot starter spells it: users of
 * one name from two issuers, a token without one and a local login are four tenants, and one login
 * is one tenant on every call, however many token credentials it holds.
 */
class CallTenantTest {

  @Test
  void usersOfOneNameFromTwoIssuersATokenAndALocalLoginAreFourTenants() {
    String local = CallTenant.tenantOf(identity(new QuarkusPrincipal("alice")));
    String issuerA = CallTenant.tenantOf(identity(jwt("alice", "https://a.example/realm")));
    String issuerB = CallTenant.tenantOf(identity(jwt("alice", "https://b.example")));
    String opaque =
        CallTenant.tenantOf(
            identity(
                new QuarkusPrincipal("alice"), new TokenCredential("an-opaque-token", "bearer")));

    assertThat(local).isEqualTo("principal:alice");
    assertThat(issuerA).isEqualTo("principal:%jwt-name:https://a.example/realm#alice");
    assertThat(issuerB).isEqualTo("principal:%jwt-name:https://b.example#alice");
    assertThat(opaque).isEqualTo("principal:%token#alice");
    assertThat(List.of(local, issuerA, issuerB, opaque)).doesNotHaveDuplicates();
    assertThat(CallTenant.tenantOf(identity(jwt("alice", null))))
        .as("a JWT without iss is a token of no issuer")
        .isEqualTo(opaque);
  }

  /**
   * An OIDC login holds several token credentials (ID, access, refresh) in a set, which may name
   * other issuers or none: the tenant is read from the principal, so every call of one login has
   * one tenant, and a retry finds its first call.
   */
  @Test
  void oneLoginWithSeveralTokenCredentialsIsOneTenantOnEveryCall() {
    Set<String> tenants = new HashSet<>();
    for (int call = 0; call < 200; call++) {
      tenants.add(
          CallTenant.tenantOf(
              identity(
                  jwt("alice", "https://a.example"),
                  new TokenCredential("id.token.of-a", "id_token") {},
                  new TokenCredential("opaque-access-" + call, "bearer") {},
                  new TokenCredential("refresh-" + call, "refresh_token") {})));
    }

    assertThat(tenants).containsExactly("principal:%jwt-name:https://a.example#alice");
  }

  /**
   * quarkus-oidc names a JWT's principal by a configured claim, which its presets for Google,
   * GitHub and LinkedIn set to the display name: two users of one issuer named alike are told apart
   * by their subject, and one user is one tenant whatever name the token carries.
   */
  @Test
  void usersOfOneIssuerAreToldApartByTheirSubjectNotTheirName() {
    String issuer = "https://accounts.example";
    String jane1 = CallTenant.tenantOf(identity(jwt("Jane Doe", issuer, "1111")));
    String jane2 = CallTenant.tenantOf(identity(jwt("Jane Doe", issuer, "2222")));
    String renamed = CallTenant.tenantOf(identity(jwt("Jane D.", issuer, "1111")));

    assertThat(jane1).isEqualTo("principal:https://accounts.example#1111");
    assertThat(jane2).isNotEqualTo(jane1);
    assertThat(renamed).isEqualTo(jane1);
  }

  /**
   * Providers without ID tokens (GitHub, Spotify: quarkus-oidc makes an internal ID token of the
   * user info, with no {@code iss}): their users are told apart by the OIDC tenant that made the
   * identity ({@code tenant-id}), and so are opaque tokens of two OIDC tenants.
   */
  @Test
  void withoutAnIssuerTwoOidcTenantsUsersOfOneNameAreTwoTenants() {
    String github = CallTenant.tenantOf(oidc("github", jwt("jane", null)));
    String spotify = CallTenant.tenantOf(oidc("spotify", jwt("jane", null)));
    String opaque =
        CallTenant.tenantOf(
            oidc("github", new QuarkusPrincipal("jane"), new TokenCredential("opaque", "bearer")));

    assertThat(github).isEqualTo("principal:%oidc:github:name:#jane");
    assertThat(spotify).isEqualTo("principal:%oidc:spotify:name:#jane");
    assertThat(opaque).as("an opaque token of the github OIDC tenant").isEqualTo(github);
    assertThat(CallTenant.tenantOf(oidc("github", jwt("jane", "https://a.example", "7"))))
        .as("a subject: another tenant than a name, under the OIDC tenant that checked it")
        .isEqualTo("principal:%oidc:github:sub:https://a.example#7");
  }

  /**
   * The same with quarkus-oidc's own types, built as its code flow builds a login through a
   * provider without ID tokens: an internal ID token of the user info (no {@code iss}, no {@code
   * sub}), an access token, and the OIDC tenant's id as an attribute.
   */
  @Test
  void quarkusOidcsInternalIdTokenLoginsOfTwoProvidersAreTwoTenants() throws Exception {
    assertThat(CallTenant.OIDC_TENANT).isEqualTo(OidcUtils.TENANT_ID_ATTRIBUTE);
    String github = CallTenant.tenantOf(internalIdTokenLogin("github", "Jane Doe"));
    String spotify = CallTenant.tenantOf(internalIdTokenLogin("spotify", "Jane Doe"));

    assertThat(github).isEqualTo("principal:%oidc:github:name:#Jane Doe");
    assertThat(spotify).isEqualTo("principal:%oidc:spotify:name:#Jane Doe");
  }

  private static SecurityIdentity internalIdTokenLogin(String oidcTenant, String name)
      throws Exception {
    JwtClaims claims = new JwtClaims();
    claims.setAudience(oidcTenant + "-client");
    claims.setExpirationTimeMinutesInTheFuture(5);
    claims.setClaim("name", name);
    IdTokenCredential idToken = new IdTokenCredential("internal." + oidcTenant, true);
    return QuarkusSecurityIdentity.builder()
        .setPrincipal(new OidcJwtCallerPrincipal(claims, idToken, "name"))
        .addCredential(idToken)
        .addCredential(new AccessTokenCredential("opaque-" + oidcTenant))
        .addAttribute(OidcUtils.TENANT_ID_ATTRIBUTE, oidcTenant)
        .build();
  }

  @Test
  void aClientCertificateAndABasicAuthUserOfOneNameAreTwoTenants() {
    String dn = "CN=alice,O=Acme";
    String certificate =
        CallTenant.tenantOf(
            QuarkusSecurityIdentity.builder()
                .setPrincipal(new javax.security.auth.x500.X500Principal(dn))
                .addCredential(new CertificateCredential(null))
                .build());

    assertThat(certificate).isEqualTo("principal:%certificate:#" + dn);
    assertThat(CallTenant.tenantOf(identity(new QuarkusPrincipal(dn))))
        .isEqualTo("principal:" + dn)
        .isNotEqualTo(certificate);
  }

  @Test
  void aLocalNameSpelledLikeAnIssuersUserIsAnotherTenant() {
    assertThat(CallTenant.tenantOf(identity(new QuarkusPrincipal("https://b.example#alice"))))
        .isEqualTo("principal:https://b.example%23alice")
        .isNotEqualTo(CallTenant.tenantOf(identity(jwt("alice", "https://b.example"))));
  }

  @Test
  void noIdentityAnAnonymousOneOrABlankNameIsNoTenant() {
    assertThat(CallTenant.tenantOf(null)).isNull();
    assertThat(
            CallTenant.tenantOf(
                QuarkusSecurityIdentity.builder()
                    .setPrincipal(new QuarkusPrincipal(""))
                    .setAnonymous(true)
                    .build()))
        .isNull();
    assertThat(CallTenant.tenantOf(identity(new QuarkusPrincipal(" ")))).isNull();
    assertThat(CallTenant.tenantOf(identity(jwt(" ", "https://a.example")))).isNull();
  }

  /**
   * An application without MicroProfile JWT (no quarkus-oidc, no smallrye-jwt): CallTenant loads
   * and names a local user and a token holder, with no NoClassDefFoundError.
   */
  @Test
  void withoutTheMicroProfileJwtApiALocalUserAndATokenHolderHaveTheirTenants() throws Exception {
    URL classes = CallTenant.class.getProtectionDomain().getCodeSource().getLocation();
    ClassLoader parent = CallTenantTest.class.getClassLoader();
    try (URLClassLoader noJwt =
        new URLClassLoader(new URL[] {classes}, parent) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
              if (name.startsWith("org.eclipse.microprofile.jwt.")) {
                throw new ClassNotFoundException(name);
              }
              if (name.startsWith("dev.mcpgate.quarkus.internal.CallTenant")) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                  c = findClass(name);
                }
                return c;
              }
              return super.loadClass(name, resolve);
            }
          }

          @Override
          public URL getResource(String name) {
            return name.startsWith("org/eclipse/microprofile/jwt/")
                ? null
                : super.getResource(name);
          }

          @Override
          public InputStream getResourceAsStream(String name) {
            return name.startsWith("org/eclipse/microprofile/jwt/")
                ? null
                : super.getResourceAsStream(name);
          }
        }) {
      Class<?> isolated = noJwt.loadClass(CallTenant.class.getName());
      assertThat(isolated.getClassLoader()).isSameAs(noJwt);
      Method tenantOf = isolated.getDeclaredMethod("tenantOf", SecurityIdentity.class);
      tenantOf.setAccessible(true);
      SecurityIdentity local =
          QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal("al#ice")).build();
      SecurityIdentity token =
          QuarkusSecurityIdentity.builder()
              .setPrincipal(new QuarkusPrincipal("alice"))
              .addCredential(new TokenCredential("t", "bearer") {})
              .build();
      assertThat(tenantOf.invoke(null, local)).isEqualTo("principal:al%23ice");
      assertThat(tenantOf.invoke(null, token)).isEqualTo("principal:%token#alice");
      Class<?> holder = noJwt.loadClass(CallTenant.class.getName() + "$JsonWebTokens");
      assertThat(holder.getClassLoader()).isSameAs(noJwt);
      var present = holder.getDeclaredField("PRESENT");
      present.setAccessible(true);
      assertThat(present.getBoolean(null)).isFalse();
    }
  }

  /** An identity as quarkus-oidc makes one: named by the OIDC tenant that checked it. */
  private static SecurityIdentity oidc(
      String tenant, Principal principal, TokenCredential... credentials) {
    QuarkusSecurityIdentity.Builder b =
        QuarkusSecurityIdentity.builder()
            .setPrincipal(principal)
            .addAttribute(CallTenant.OIDC_TENANT, tenant);
    for (TokenCredential credential : credentials) {
      b.addCredential(credential);
    }
    return b.build();
  }

  private static SecurityIdentity identity(Principal principal, TokenCredential... credentials) {
    QuarkusSecurityIdentity.Builder b = QuarkusSecurityIdentity.builder().setPrincipal(principal);
    for (TokenCredential credential : credentials) {
      b.addCredential(credential);
    }
    return b.build();
  }

  /** A verified JWT's principal (what quarkus-oidc and smallrye-jwt give), without a subject. */
  private static JsonWebToken jwt(String name, String issuer) {
    return jwt(name, issuer, null);
  }

  /** A verified JWT's principal, of these claims (null for one it has not). */
  private static JsonWebToken jwt(String name, String issuer, String subject) {
    Map<String, Object> claims = new java.util.HashMap<>();
    claims.put("upn", name);
    if (issuer != null) {
      claims.put("iss", issuer);
    }
    if (subject != null) {
      claims.put("sub", subject);
    }
    return new JsonWebToken() {
      @Override
      public String getName() {
        return name;
      }

      @Override
      public Set<String> getClaimNames() {
        return claims.keySet();
      }

      @Override
      @SuppressWarnings("unchecked")
      public <T> T getClaim(String claim) {
        return (T) claims.get(claim);
      }
    };
  }
}
