package dev.mcpgate.spring.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.spring.McpGateProperties;
import io.modelcontextprotocol.common.McpTransportContext;
import java.lang.reflect.Constructor;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * docs/security.md: a principal's tenant names its issuer "in an encoding where no two (issuer,
 * name) pairs meet"; a token that names no issuer is {@code principal:%token#} + name, "a raw
 * {@code %} never begins an escaped issuer".
 *
 * <p>Expected: a bearer token whose {@code iss} is the text {@code %token} is the issuer {@code
 * %token} (escaped {@code %25token}), another tenant than a token without {@code iss}. What
 * happens: RequestIdentity.Issuers returns the marker as a plain string and
 * TenantResolver.principal compares the issuer to it by value, so both tokens of {@code alice}
 * resolve to {@code principal:%token#alice}, one tenant, sharing keys and stored results.
 */
class TokenIssuerSpelledAsTheNoIssuerMarkerTest {

  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
  }

  private static TenantResolver principalResolver() throws Exception {
    McpGateProperties.Tenant config = new McpGateProperties.Tenant();
    config.setFromPrincipal(true);
    Class<?> type = Class.forName("dev.mcpgate.spring.SpringTenantResolver");
    Constructor<?> make = type.getDeclaredConstructor(McpGateProperties.Tenant.class);
    make.setAccessible(true);
    return (TenantResolver) make.newInstance(config);
  }

  private static String tenantOf(Authentication auth) throws Exception {
    SecurityContextHolder.getContext().setAuthentication(auth);
    try {
      return principalResolver().resolve(McpTransportContext.EMPTY);
    } finally {
      SecurityContextHolder.clearContext();
    }
  }

  private static JwtAuthenticationToken token(String issuer, String subject) {
    Jwt.Builder b = Jwt.withTokenValue("t").header("alg", "none").subject(subject);
    return new JwtAuthenticationToken((issuer == null ? b : b.issuer(issuer)).build(), List.of());
  }

  @Test
  void anIssuerNamedPercentTokenIsNotTheTokenWithoutIssuer() throws Exception {
    String withoutIssuer = tenantOf(token(null, "alice"));
    String issuerPercentToken = tenantOf(token("%token", "alice"));

    assertThat(withoutIssuer).isEqualTo("principal:%token#alice");
    assertThat(issuerPercentToken)
        .as("the issuer %%token is an issuer, escaped like any other")
        .isEqualTo("principal:%25token#alice")
        .isNotEqualTo(withoutIssuer);
  }
}
