package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import java.security.Principal;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;
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
    assertThat(issuerA).isEqualTo("principal:https://a.example/realm#alice");
    assertThat(issuerB).isEqualTo("principal:https://b.example#alice");
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

    assertThat(tenants).containsExactly("principal:https://a.example#alice");
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

  private static SecurityIdentity identity(Principal principal, TokenCredential... credentials) {
    QuarkusSecurityIdentity.Builder b = QuarkusSecurityIdentity.builder().setPrincipal(principal);
    for (TokenCredential credential : credentials) {
      b.addCredential(credential);
    }
    return b.build();
  }

  /** A verified JWT's principal (what quarkus-oidc and smallrye-jwt give), of these claims. */
  private static JsonWebToken jwt(String name, String issuer) {
    Map<String, Object> claims =
        issuer == null ? Map.of("upn", name) : Map.of("upn", name, "iss", issuer);
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
