package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.common.McpTransportContext;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken;
import org.springframework.security.oauth2.core.oidc.OidcIdToken;
import org.springframework.security.oauth2.core.oidc.user.DefaultOidcUser;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * One identity provider, two ways in: an OIDC login whose user-name-attribute is
 * preferred_username, and bearer JWTs named by sub (the defaults of each). Both were spelled
 * "principal:" + iss + "#" + getName(), so a user whose chosen username equals another user's sub
 * got that user's tenant: its stored results, its keys (found in review). A name that is not the
 * principal's subject is now spelled apart ({@code principal:%name:} + iss + {@code #} + name); a
 * subject keeps its spelling.
 */
class NameIsNotSubjectReviewTest {
  private static final String ISS = "https://idp.example/realms/app";

  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
  }

  private static String tenant(Authentication auth) {
    SecurityContextHolder.getContext().setAuthentication(auth);
    McpGateProperties.Tenant config = new McpGateProperties.Tenant();
    config.setFromPrincipal(true);
    return new SpringTenantResolver(config).resolve(McpTransportContext.EMPTY);
  }

  @Test
  void anOidcLoginNamedByItsSubjectKeepsItsSpelling() {
    OidcIdToken idToken = OidcIdToken.withTokenValue("id").issuer(ISS).subject("0b1d-user").build();
    DefaultOidcUser user = new DefaultOidcUser(List.of(), idToken); // named by sub, the default
    assertThat(tenant(new OAuth2AuthenticationToken(user, List.of(), "keycloak")))
        .isEqualTo("principal:" + ISS + "#0b1d-user");
  }

  @Test
  void aLoginsUsernameIsNeverAnotherUsersSubject() {
    // victim: calls with a bearer token; its sub is an opaque id
    Jwt victimToken =
        Jwt.withTokenValue("t")
            .header("alg", "none")
            .issuer(ISS)
            .subject("5f0c2a9e-victim")
            .claim("preferred_username", "victim")
            .build();
    String victim = tenant(new JwtAuthenticationToken(victimToken, List.of()));

    // attacker: logged in through the same provider, having chosen the victim's sub as username
    OidcIdToken idToken =
        OidcIdToken.withTokenValue("id")
            .issuer(ISS)
            .subject("0b1d-attacker")
            .claim("preferred_username", "5f0c2a9e-victim")
            .build();
    DefaultOidcUser attackerUser = new DefaultOidcUser(List.of(), idToken, "preferred_username");
    String attacker = tenant(new OAuth2AuthenticationToken(attackerUser, List.of(), "keycloak"));

    assertThat(attacker).as("victim's tenant is %s", victim).isNotEqualTo(victim);
    assertThat(victim).isEqualTo("principal:" + ISS + "#5f0c2a9e-victim");
    assertThat(attacker).isEqualTo("principal:%name:" + ISS + "#5f0c2a9e-victim");
  }
}
