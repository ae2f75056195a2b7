package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.spring.McpGateProperties.Tenant.Source;
import io.modelcontextprotocol.common.McpTransportContext;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken;
import org.springframework.security.oauth2.core.DefaultOAuth2AuthenticatedPrincipal;
import org.springframework.security.oauth2.core.oidc.OidcIdToken;
import org.springframework.security.oauth2.core.oidc.user.DefaultOidcUser;
import org.springframework.security.oauth2.core.user.DefaultOAuth2User;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.server.ServerWebExchange;
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

  private static Jwt jwt(String issuer, String subject) {
    Jwt.Builder b = Jwt.withTokenValue("t").header("alg", "none").subject(subject);
    return (issuer == null ? b : b.issuer(issuer)).build();
  }

  private static void signIn(Authentication auth) {
    SecurityContextHolder.getContext().setAuthentication(auth);
  }

  private static String principalTenant(Authentication auth) {
    signIn(auth);
    try {
      return resolver(true, null, null).resolve(McpTransportContext.EMPTY);
    } finally {
      SecurityContextHolder.clearContext();
    }
  }

  @Test
  void aPrincipalsTenantNamesItsIssuer() {
    assertThat(
            principalTenant(
                new JwtAuthenticationToken(jwt("https://idp-a.example", "alice"), List.of())))
        .isEqualTo("principal:https://idp-a.example#alice");
    assertThat(
            principalTenant(
                new JwtAuthenticationToken(jwt("https://idp-b.example", "alice"), List.of())))
        .as("another identity provider's alice")
        .isEqualTo("principal:https://idp-b.example#alice");
    assertThat(principalTenant(new JwtAuthenticationToken(jwt(null, "alice"), List.of())))
        .as("a token without iss: not the local user alice")
        .isEqualTo("principal:%token#alice");
    assertThat(
            principalTenant(
                UsernamePasswordAuthenticationToken.authenticated("alice", null, List.of())))
        .as("no issuer: HTTP Basic, a form login")
        .isEqualTo("principal:alice");

    OidcIdToken idToken =
        OidcIdToken.withTokenValue("id")
            .issuer("https://accounts.example")
            .subject("1234")
            .claim("email", "alice@example.com")
            .build();
    DefaultOidcUser oidc = new DefaultOidcUser(List.of(), idToken);
    assertThat(
            principalTenant(
                UsernamePasswordAuthenticationToken.authenticated(oidc, null, List.of())))
        .as("an OIDC login")
        .isEqualTo("principal:https://accounts.example#1234");

    DefaultOAuth2AuthenticatedPrincipal introspected =
        new DefaultOAuth2AuthenticatedPrincipal(
            "bob", Map.of("iss", "https://as.example", "sub", "bob"), List.of());
    assertThat(
            principalTenant(
                UsernamePasswordAuthenticationToken.authenticated(introspected, null, List.of())))
        .as("an introspected opaque token")
        .isEqualTo("principal:https://as.example#bob");
  }

  @Test
  void reactivelyTheIssuerIsNamedToo() {
    assertThat(
            resolver(true, null, null)
                .resolveReactive(McpTransportContext.EMPTY)
                .subscribeOn(Schedulers.boundedElastic())
                .contextWrite(
                    ReactiveSecurityContextHolder.withAuthentication(
                        new JwtAuthenticationToken(
                            jwt("https://idp-a.example", "alice"), List.of())))
                .block(Duration.ofSeconds(5)))
        .isEqualTo("principal:https://idp-a.example#alice");
  }

  @Test
  void twoOAuth2LoginsWithoutAnIssuerKeepTheirUsersApart() {
    DefaultOAuth2User user =
        new DefaultOAuth2User(List.of(), Map.of("id", "12345", "login", "alice"), "id");
    assertThat(principalTenant(new OAuth2AuthenticationToken(user, List.of(), "github")))
        .isEqualTo("principal:%oauth2-client:github#12345");
    assertThat(principalTenant(new OAuth2AuthenticationToken(user, List.of(), "gitlab")))
        .as("another provider's user of the same id")
        .isEqualTo("principal:%oauth2-client:gitlab#12345");
    assertThat(principalTenant(new JwtAuthenticationToken(jwt(null, "12345"), List.of())))
        .as("a token without iss")
        .isEqualTo("principal:%token#12345");
  }

  @Test
  void noTwoIssuerAndNamePairsShareATenant() {
    String[][] pairs = {
      {null, "alice"},
      {"%token", "alice"},
      {null, "%token#alice"},
      {"", "alice"},
      {"a", "b"},
      {null, "a#b"},
      {"a#b", "c"},
      {"a", "b#c"},
      {"a%23b", "c"},
      {"a", "b%23c"},
      {null, "a%23b"},
      {"a%", "23b"},
      {"a", "%23b"},
      {"https://idp.example/", "alice"},
      {"https://idp.example", "/alice"},
      {"principal:x", "y"},
      {null, "principal:x#y"},
    };
    Set<String> tenants = new HashSet<>();
    Set<String> distinctPairs = new HashSet<>();
    for (String[] pair : pairs) {
      String issuer = pair[0] == null || pair[0].isBlank() ? null : pair[0];
      if (distinctPairs.add(issuer + "\u0000" + pair[1])) {
        for (String origin :
            Arrays.asList(null, "token", "oauth2-client:github", "oauth2-client:git#hub")) {
          String tenant = TenantResolver.principal(pair[0], origin, pair[1]);
          if (issuer != null && origin != null) {
            continue; // a principal with an issuer is named by it, whatever its origin
          }
          assertThat(tenants.add(tenant))
              .as("%s %s (origin %s) gave %s", pair[0], pair[1], origin, tenant)
              .isTrue();
        }
      }
    }
    assertThat(TenantResolver.principal("a#b", null, "c#d%")).isEqualTo("principal:a%23b#c%23d%25");
  }

  @Test
  void aRepeatedHeaderIsNoTenantAndNeverFallsBack() {
    MockHttpServletRequest twice = new MockHttpServletRequest();
    twice.addHeader("X-Tenant", "acme");
    twice.addHeader("X-Tenant", "evil");
    RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(twice));
    SpringTenantResolver headerThenConstant =
        resolver(false, "X-Tenant", "solo", Source.HEADER, Source.CONSTANT);

    assertThat(headerThenConstant.resolve(McpTransportContext.EMPTY)).isNull();
    assertThat(resolver(false, "X-Tenant", null).resolve(McpTransportContext.EMPTY)).isNull();
    assertThat(
            headerThenConstant
                .resolveReactive(McpTransportContext.EMPTY)
                .blockOptional(Duration.ofSeconds(5)))
        .as("reactively, on the request thread")
        .isEmpty();

    request("acme");
    assertThat(headerThenConstant.resolve(McpTransportContext.EMPTY)).isEqualTo("header:acme");
  }

  @Test
  void reactivelyARepeatedHeaderInTheExchangeIsNoTenant() {
    SpringTenantResolver headerThenConstant =
        resolver(false, "X-Tenant", "solo", Source.HEADER, Source.CONSTANT);
    MockServerWebExchange twice =
        MockServerWebExchange.from(
            MockServerHttpRequest.get("/mcp").header("X-Tenant", "acme", "evil"));
    MockServerWebExchange once =
        MockServerWebExchange.from(MockServerHttpRequest.get("/mcp").header("X-Tenant", "acme"));

    assertThat(
            headerThenConstant
                .resolveReactive(McpTransportContext.EMPTY)
                .subscribeOn(Schedulers.boundedElastic())
                .contextWrite(c -> c.put(ServerWebExchange.class, twice))
                .blockOptional(Duration.ofSeconds(5)))
        .isEmpty();
    assertThat(
            headerThenConstant
                .resolveReactive(McpTransportContext.EMPTY)
                .subscribeOn(Schedulers.boundedElastic())
                .contextWrite(c -> c.put(ServerWebExchange.class, once))
                .block(Duration.ofSeconds(5)))
        .isEqualTo("header:acme");
  }

  @Test
  void aRepeatedHeaderIsWarnedOfAtMostOnceAMinuteWithoutItsValues() {
    MockHttpServletRequest twice = new MockHttpServletRequest();
    twice.addHeader("X-Tenant", "acme");
    twice.addHeader("X-Tenant", "evil-value");
    RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(twice));
    SpringTenantResolver r = resolver(false, "X-Tenant", null);
    StringBuilder log = new StringBuilder();
    StarterFrictionTest.logged(
        log,
        () -> {
          for (int i = 0; i < 50; i++) {
            assertThat(r.resolve(McpTransportContext.EMPTY)).isNull();
          }
          return null;
        });
    assertThat(log.toString().split("tenant header X-Tenant 2 times", -1))
        .as("one warning a minute, not one a call")
        .hasSize(2);
    assertThat(log).doesNotContain("evil-value");
  }
}
