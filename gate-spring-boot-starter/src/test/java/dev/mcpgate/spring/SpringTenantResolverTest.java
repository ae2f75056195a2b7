package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.common.McpTransportContext;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Where the tenant comes from, in order: the authenticated principal, the configured header, the
 * constant; with none of them, no tenant (the adapter then refuses the call).
 */
class SpringTenantResolverTest {

  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
    RequestContextHolder.resetRequestAttributes();
  }

  private static SpringTenantResolver resolver(boolean principal, String header,
      String constant) {
    McpGateProperties.Tenant config = new McpGateProperties.Tenant();
    config.setFromPrincipal(principal);
    config.setHeader(header);
    config.setConstant(constant);
    return new SpringTenantResolver(config);
  }

  private static void request(String tenantHeader) {
    MockHttpServletRequest request = new MockHttpServletRequest();
    if (tenantHeader != null) {
      request.addHeader("X-Tenant", tenantHeader);
    }
    RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
  }

  @Test
  void theAuthenticatedPrincipalComesFirst() {
    SecurityContextHolder.getContext().setAuthentication(
        UsernamePasswordAuthenticationToken.authenticated("alice", null, List.of()));
    request("from-header");

    assertThat(resolver(true, "X-Tenant", "constant").resolve(McpTransportContext.EMPTY))
        .isEqualTo("alice");
    assertThat(resolver(false, "X-Tenant", "constant").resolve(McpTransportContext.EMPTY))
        .isEqualTo("from-header");
  }

  @Test
  void anAnonymousOrUnauthenticatedCallerIsNoTenant() {
    SecurityContextHolder.getContext().setAuthentication(new AnonymousAuthenticationToken(
        "key", "anonymousUser", List.of(new SimpleGrantedAuthority("ROLE_ANONYMOUS"))));
    assertThat(resolver(true, null, null).resolve(McpTransportContext.EMPTY)).isNull();

    SecurityContextHolder.getContext().setAuthentication(
        UsernamePasswordAuthenticationToken.unauthenticated("mallory", "guess"));
    assertThat(resolver(true, null, null).resolve(McpTransportContext.EMPTY)).isNull();
  }

  @Test
  void thenTheHeaderThenTheConstantThenNothing() {
    request(null);
    assertThat(resolver(true, "X-Tenant", "solo").resolve(McpTransportContext.EMPTY))
        .isEqualTo("solo");
    request("  ");
    assertThat(resolver(true, "X-Tenant", null).resolve(McpTransportContext.EMPTY)).isNull();
    request("acme");
    assertThat(resolver(true, "X-Tenant", null).resolve(McpTransportContext.EMPTY))
        .isEqualTo("acme");
    RequestContextHolder.resetRequestAttributes();
    assertThat(resolver(true, "X-Tenant", null).resolve(McpTransportContext.EMPTY)).isNull();
  }
}
