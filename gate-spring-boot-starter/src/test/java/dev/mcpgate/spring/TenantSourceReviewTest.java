package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.spring.McpGateProperties.Tenant.Source;
import io.modelcontextprotocol.common.McpTransportContext;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.DefaultOAuth2AuthenticatedPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.context.request.RequestContextHolder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Findings of an adversarial review of the tenant sources: each test failed on main before its fix
 * (86e7ca6). A source that cannot be read where the call runs refuses instead of letting the next
 * source (a constant shared by everyone) answer; a token without an issuer is not the local user of
 * the same name.
 */
class TenantSourceReviewTest {
  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
    RequestContextHolder.resetRequestAttributes();
  }

  private static SpringTenantResolver resolver(String header, String constant, Source... sources) {
    McpGateProperties.Tenant config = new McpGateProperties.Tenant();
    config.setFromPrincipal(true);
    config.setHeader(header);
    config.setConstant(constant);
    config.setSources(List.of(sources));
    return new SpringTenantResolver(config);
  }

  private static String tenantOf(Authentication auth) {
    SecurityContextHolder.getContext().setAuthentication(auth);
    try {
      return resolver(null, null).resolve(McpTransportContext.EMPTY);
    } finally {
      SecurityContextHolder.clearContext();
    }
  }

  @Test
  void syncToolOnWebFluxTwoAuthenticatedUsersDoNotShareTheFallbackConstant() {
    SpringTenantResolver r = resolver(null, "shared", Source.PRINCIPAL, Source.CONSTANT);
    Function<String, String> syncCallAs =
        name ->
            Mono.fromCallable(() -> String.valueOf(r.resolve(McpTransportContext.EMPTY)))
                .subscribeOn(Schedulers.boundedElastic())
                .contextWrite(
                    ReactiveSecurityContextHolder.withAuthentication(
                        UsernamePasswordAuthenticationToken.authenticated(name, null, List.of())))
                .block();

    assertThat(syncCallAs.apply("alice")).isEqualTo("null").isEqualTo(syncCallAs.apply("bob"));
  }

  @Test
  void aHeaderThatCannotBeReadIsNotAnsweredByTheNextSource() {
    SpringTenantResolver r = resolver("X-Tenant", "shared", Source.HEADER, Source.CONSTANT);

    assertThat(r.resolveReactive(McpTransportContext.EMPTY).block()).isNull();
    assertThat(r.resolve(McpTransportContext.EMPTY)).isNull();
  }

  @Test
  void aJwtWithoutIssuerIsNotTheBasicUserOfTheSameName() {
    Jwt noIss = Jwt.withTokenValue("t").header("alg", "none").subject("alice").build();

    assertThat(tenantOf(new JwtAuthenticationToken(noIss, List.of())))
        .isNotEqualTo(
            tenantOf(UsernamePasswordAuthenticationToken.authenticated("alice", null, List.of())));
  }

  @Test
  void anOAuth2UserWithoutIssuerIsNotTheLocalUserOfTheSameName() {
    DefaultOAuth2AuthenticatedPrincipal github =
        new DefaultOAuth2AuthenticatedPrincipal("583231", Map.of("id", 583231), List.of());

    assertThat(tenantOf(UsernamePasswordAuthenticationToken.authenticated(github, null, List.of())))
        .isNotEqualTo(
            tenantOf(UsernamePasswordAuthenticationToken.authenticated("583231", null, List.of())));
  }
}
