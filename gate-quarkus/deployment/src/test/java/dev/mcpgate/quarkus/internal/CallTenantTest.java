package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tenant of an authenticated identity: users of one name from two issuers, a token with no
 * issuer and a local user are four tenants, spelled as the Spring Boot starter spells them.
 */
class CallTenantTest {

  @Test
  void usersOfOneNameFromTwoIssuersATokenAndALocalLoginAreFourTenants() {
    String local = CallTenant.tenantOf(identity("alice", null));
    String issuerA = CallTenant.tenantOf(identity("alice", jwt("https://a.example/realm")));
    String issuerB = CallTenant.tenantOf(identity("alice", jwt("https://b.example")));
    String opaque = CallTenant.tenantOf(identity("alice", "an-opaque-token"));

    assertThat(local).isEqualTo("principal:alice");
    assertThat(issuerA).isEqualTo("principal:https://a.example/realm#alice");
    assertThat(issuerB).isEqualTo("principal:https://b.example#alice");
    assertThat(opaque).isEqualTo("principal:%token#alice");
    assertThat(List.of(local, issuerA, issuerB, opaque)).doesNotHaveDuplicates();
  }

  @Test
  void aLocalNameSpelledLikeAnIssuersUserIsAnotherTenant() {
    assertThat(CallTenant.tenantOf(identity("https://b.example#alice", null)))
        .isEqualTo("principal:https://b.example%23alice")
        .isNotEqualTo(CallTenant.tenantOf(identity("alice", jwt("https://b.example"))));
  }

  @Test
  void aTokenCredentialOfASubclassIsReadToo() {
    SecurityIdentity oidc =
        QuarkusSecurityIdentity.builder()
            .setPrincipal(new QuarkusPrincipal("alice"))
            .addCredential(new TokenCredential(jwt("https://a.example"), "bearer") {})
            .build();

    assertThat(CallTenant.tenantOf(oidc)).isEqualTo("principal:https://a.example#alice");
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
    assertThat(CallTenant.tenantOf(identity(" ", null))).isNull();
  }

  @Test
  void aTokenThatIsNoJwtOrNamesNoIssuerHasNone() {
    assertThat(CallTenant.issuerOf("a.b")).isNull();
    assertThat(CallTenant.issuerOf("x.%%%.y")).isNull();
    assertThat(CallTenant.issuerOf("x." + b64("not json") + ".y")).isNull();
    assertThat(CallTenant.issuerOf("x." + b64("{\"sub\":\"alice\"}") + ".y")).isNull();
    assertThat(CallTenant.issuerOf("x." + b64("{\"iss\":7}") + ".y")).isNull();
    assertThat(CallTenant.issuerOf(jwt("https://a.example"))).isEqualTo("https://a.example");
  }

  private static SecurityIdentity identity(String name, String token) {
    QuarkusSecurityIdentity.Builder b =
        QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(name));
    if (token != null) {
      b.addCredential(new TokenCredential(token, "bearer"));
    }
    return b.build();
  }

  /** A JWT's shape with an {@code iss} (the signature is the mechanism's to check, not ours). */
  private static String jwt(String issuer) {
    return b64("{\"alg\":\"RS256\"}")
        + "."
        + b64("{\"iss\":\"" + issuer + "\",\"sub\":\"alice\"}")
        + ".c2lnbmF0dXJl";
  }

  private static String b64(String json) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }
}
