package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.spring.McpGateProperties.Tenant.Source;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpTransportContextExtractor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.server.webflux.transport.WebFluxStatelessServerTransport;
import org.springframework.ai.mcp.server.webflux.transport.WebFluxStreamableServerTransportProvider;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.reactive.function.server.MockServerRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * The capture alone: {@link WebFluxIdentity.CaptureFilter} after Spring Security's filters, the
 * wrapped context extractor, and what {@link SpringTenantResolver} makes of them for a sync tool,
 * which reads them on another thread with no Reactor context.
 */
class WebFluxIdentityTest {

  private static SpringTenantResolver resolver(String header, String constant, Source... sources) {
    McpGateProperties.Tenant config = new McpGateProperties.Tenant();
    config.setHeader(header);
    config.setConstant(constant);
    config.setSources(List.of(sources));
    return new SpringTenantResolver(config);
  }

  /** The filter on a POST with this Reactor context; the exchange as it leaves the filter. */
  private static ServerWebExchange filtered(Context reactor) {
    MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/mcp"));
    new WebFluxIdentity.CaptureFilter()
        .filter(exchange, e -> Mono.empty())
        .contextWrite(reactor)
        .block();
    return exchange;
  }

  private static Context authenticated(Authentication auth) {
    return ReactiveSecurityContextHolder.withAuthentication(auth);
  }

  /** The transport context the wrapped extractor makes of the filtered exchange. */
  private static McpTransportContext extracted(
      ServerWebExchange exchange, String header, List<String> lines) {
    MockServerRequest.Builder request = MockServerRequest.builder().exchange(exchange);
    exchange.getAttributes().forEach(request::attribute);
    if (lines != null) {
      org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
      headers.addAll(header, lines);
      request.headers(headers);
    }
    return new WebFluxIdentity.Capturing(r -> McpTransportContext.EMPTY, header)
        .extract(request.build());
  }

  /** What a sync tool's resolver says: on bounded-elastic, without the request's context. */
  private static String syncTenant(SpringTenantResolver r, McpTransportContext context) {
    return Mono.fromCallable(() -> String.valueOf(r.resolve(context)))
        .subscribeOn(Schedulers.boundedElastic())
        .block();
  }

  @Test
  void afterSecurityEachAuthenticatedUserIsHisOwnTenant() {
    SpringTenantResolver r = resolver(null, "shared", Source.PRINCIPAL, Source.CONSTANT);
    McpTransportContext alice =
        extracted(
            filtered(
                authenticated(
                    UsernamePasswordAuthenticationToken.authenticated("alice", null, List.of()))),
            null,
            null);
    McpTransportContext bob =
        extracted(
            filtered(
                authenticated(
                    UsernamePasswordAuthenticationToken.authenticated("bob", null, List.of()))),
            null,
            null);

    assertThat(syncTenant(r, alice)).isEqualTo("principal:alice");
    assertThat(syncTenant(r, bob)).isEqualTo("principal:bob");
    assertThat(r.resolveReactive(alice).block()).isEqualTo("principal:alice");
  }

  @Test
  void anAnonymousCallerHasNoPrincipalSoTheNextListedSourceAnswers() {
    SpringTenantResolver r = resolver(null, "shared", Source.PRINCIPAL, Source.CONSTANT);
    Authentication anonymous =
        new AnonymousAuthenticationToken(
            "key", "anonymousUser", AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS"));

    assertThat(syncTenant(r, extracted(filtered(authenticated(anonymous)), null, null)))
        .isEqualTo("constant:shared");
  }

  @Test
  void withoutASecurityContextBeforeTheFilterThePrincipalIsUnreadableNotAbsent() {
    // the filter ran before Spring Security's (or no security chain covered the request): an
    // authenticated caller may be there, unseen; the constant must not answer for him
    SpringTenantResolver r = resolver(null, "shared", Source.PRINCIPAL, Source.CONSTANT);
    McpTransportContext context = extracted(filtered(Context.empty()), null, null);

    assertThat(syncTenant(r, context)).isEqualTo("null");
    assertThat(r.resolveReactive(context).block()).isNull();
  }

  @Test
  void theTenantHeaderIsCapturedAndARepeatedOneRefused() {
    SpringTenantResolver r = resolver("X-Tenant", "acme", Source.HEADER, Source.CONSTANT);
    ServerWebExchange exchange = filtered(Context.empty());

    assertThat(syncTenant(r, extracted(exchange, "X-Tenant", List.of("globex"))))
        .isEqualTo("header:globex");
    assertThat(syncTenant(r, extracted(exchange, "X-Tenant", List.of("globex", "evil"))))
        .isEqualTo("null");
    assertThat(syncTenant(r, extracted(exchange, "X-Tenant", null))).isEqualTo("constant:acme");
  }

  @Test
  void theTransportsOwnExtractorIsKeptUnderTheCapture() {
    McpTransportContextExtractor<ServerRequest> own =
        request -> McpTransportContext.create(Map.of("tenant", "from-the-application"));
    WebFluxStreamableServerTransportProvider transport =
        WebFluxStreamableServerTransportProvider.builder().contextExtractor(own).build();

    assertThat(WebFluxIdentity.install(transport, null)).isTrue();
    assertThat(WebFluxIdentity.install(transport, null)).as("installed once").isTrue();

    MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/mcp"));
    McpTransportContext context =
        extractorOf(transport).extract(MockServerRequest.builder().exchange(exchange).build());
    assertThat(context.get("tenant")).isEqualTo("from-the-application");
    assertThat(RequestIdentity.Captured.of(context)).isNotNull();
  }

  @Test
  void theStatelessTransportIsWrappedTooAndAnObjectWithoutAnExtractorIsNot() {
    assertThat(WebFluxIdentity.install(WebFluxStatelessServerTransport.builder().build(), null))
        .isTrue();
    assertThat(WebFluxIdentity.install(new Object(), null)).isFalse();
  }

  @SuppressWarnings("unchecked")
  private static McpTransportContextExtractor<ServerRequest> extractorOf(Object transport) {
    try {
      var f = transport.getClass().getDeclaredField("contextExtractor");
      f.setAccessible(true);
      return (McpTransportContextExtractor<ServerRequest>) f.get(transport);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
