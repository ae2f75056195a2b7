package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.spring.McpGateProperties.Tenant.Source;
import io.modelcontextprotocol.common.McpTransportContext;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Where the tenant comes from: one source (the first configured of principal, header, constant), or
 * the listed ones in order; a source that finds nothing gives no tenant (the adapter then refuses
 * the call); every tenant carries its source.
 */
class SpringTenantResolverTest {

  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
    RequestContextHolder.resetRequestAttributes();
  }

  private static SpringTenantResolver resolver(
      boolean principal, String header, String constant, Source... sources) {
    McpGateProperties.Tenant config = new McpGateProperties.Tenant();
    config.setFromPrincipal(principal);
    config.setHeader(header);
    config.setConstant(constant);
    config.setSources(List.of(sources));
    return new SpringTenantResolver(config);
  }

  private static void request(String tenantHeader) {
    MockHttpServletRequest request = new MockHttpServletRequest();
    if (tenantHeader != null) {
      request.addHeader("X-Tenant", tenantHeader);
    }
    RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
  }

  private static void signIn(String name) {
    SecurityContextHolder.getContext()
        .setAuthentication(
            UsernamePasswordAuthenticationToken.authenticated(name, null, List.of()));
  }

  @Test
  void oneSourceTheFirstConfiguredAndEveryTenantCarriesIt() {
    signIn("acme");
    request("acme");

    assertThat(resolver(true, "X-Tenant", "acme").resolve(McpTransportContext.EMPTY))
        .isEqualTo("principal:acme");
    assertThat(resolver(false, "X-Tenant", "acme").resolve(McpTransportContext.EMPTY))
        .isEqualTo("header:acme");
    assertThat(resolver(false, null, "acme").resolve(McpTransportContext.EMPTY))
        .isEqualTo("constant:acme");
    assertThat(resolver(true, "X-Tenant", "acme").sources()).containsExactly(Source.PRINCIPAL);
  }

  @Test
  void aSourceThatFindsNothingNeverFallsBack() {
    request("from-header"); // anonymous, with a header and a constant configured
    assertThat(resolver(true, "X-Tenant", "solo").resolve(McpTransportContext.EMPTY)).isNull();
    request(null);
    assertThat(resolver(false, "X-Tenant", "solo").resolve(McpTransportContext.EMPTY)).isNull();
    request("  ");
    assertThat(resolver(false, "X-Tenant", null).resolve(McpTransportContext.EMPTY)).isNull();
    RequestContextHolder.resetRequestAttributes();
    assertThat(resolver(false, "X-Tenant", null).resolve(McpTransportContext.EMPTY)).isNull();
    assertThat(resolver(false, null, null).resolve(McpTransportContext.EMPTY)).isNull();
  }

  @Test
  void anExplicitOrderIsAskedInOrder() {
    request("acme");
    SpringTenantResolver ordered =
        resolver(true, "X-Tenant", "solo", Source.PRINCIPAL, Source.HEADER, Source.CONSTANT);
    assertThat(ordered.resolve(McpTransportContext.EMPTY)).isEqualTo("header:acme");
    signIn("alice");
    assertThat(ordered.resolve(McpTransportContext.EMPTY)).isEqualTo("principal:alice");
    SecurityContextHolder.clearContext();
    request(null);
    assertThat(ordered.resolve(McpTransportContext.EMPTY)).isEqualTo("constant:solo");
  }

  @Test
  void aListedSourceMustBeConfigured() {
    assertThatThrownBy(() -> resolver(true, null, null, Source.HEADER))
        .hasMessageContaining("mcpgate.tenant.header");
    assertThatThrownBy(() -> resolver(true, "X-Tenant", null, Source.CONSTANT))
        .hasMessageContaining("mcpgate.tenant.constant");
    assertThatThrownBy(() -> resolver(false, null, "x".repeat(250)))
        .hasMessageContaining("mcpgate.tenant.constant");
  }

  @Test
  void anAnonymousOrUnauthenticatedCallerIsNoTenant() {
    SecurityContextHolder.getContext()
        .setAuthentication(
            new AnonymousAuthenticationToken(
                "key", "anonymousUser", List.of(new SimpleGrantedAuthority("ROLE_ANONYMOUS"))));
    assertThat(resolver(true, null, null).resolve(McpTransportContext.EMPTY)).isNull();

    SecurityContextHolder.getContext()
        .setAuthentication(UsernamePasswordAuthenticationToken.unauthenticated("mallory", "guess"));
    assertThat(resolver(true, null, null).resolve(McpTransportContext.EMPTY)).isNull();
  }

  @Test
  void reactivelyThePrincipalComesFromTheReactorContextOnAnyThread() {
    SpringTenantResolver r = resolver(true, null, "shared");
    String tenant =
        r.resolveReactive(McpTransportContext.EMPTY)
            .subscribeOn(Schedulers.boundedElastic()) // no thread-locals there
            .contextWrite(
                ReactiveSecurityContextHolder.withAuthentication(
                    UsernamePasswordAuthenticationToken.authenticated("bob", null, List.of())))
            .block(Duration.ofSeconds(5));
    assertThat(tenant).isEqualTo("principal:bob");

    assertThat(
            r.resolveReactive(McpTransportContext.EMPTY)
                .contextWrite(
                    ReactiveSecurityContextHolder.withAuthentication(
                        new AnonymousAuthenticationToken(
                            "key",
                            "anonymousUser",
                            List.of(new SimpleGrantedAuthority("ROLE_ANONYMOUS")))))
                .blockOptional(Duration.ofSeconds(5)))
        .isEmpty();
    assertThat(
            r.resolveReactive(McpTransportContext.EMPTY)
                .subscribeOn(Schedulers.boundedElastic())
                .blockOptional(Duration.ofSeconds(5)))
        .as("no principal anywhere: no tenant, not the constant")
        .isEmpty();
  }

  @Test
  void reactivelyOnTheServletStackTheRequestThreadIsRead() {
    signIn("alice");
    assertThat(
            resolver(true, null, null)
                .resolveReactive(McpTransportContext.EMPTY)
                .block(Duration.ofSeconds(5)))
        .isEqualTo("principal:alice");
    assertThat(
            Mono.defer(() -> resolver(true, null, null).resolveReactive(McpTransportContext.EMPTY))
                .block())
        .isEqualTo("principal:alice");
  }
}
