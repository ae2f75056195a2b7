package dev.mcpgate.spring;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpTransportContextExtractor;
import java.util.List;
import java.util.Optional;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Where a WebFlux request arrives, the identity of its caller is captured for the tools that run
 * off the request: a sync tool specification runs on Reactor's bounded-elastic scheduler, where
 * neither the Reactor context (which holds Spring Security's principal) nor the exchange is seen;
 * only the call's {@link McpTransportContext} is. So:
 *
 * <ol>
 *   <li>{@link CaptureFilter}, a {@link WebFilter} after Spring Security's, reads the principal
 *       from the request's Reactor context and keeps its tenant in an exchange attribute;
 *   <li>the MCP transport's context extractor (Spring AI's WebFlux transports make the {@link
 *       McpTransportContext} of each call from the request with one) is wrapped by {@link
 *       #install}: the transport context it makes also carries the captured principal and the
 *       tenant header's lines ({@link RequestIdentity.Captured}), where {@link
 *       SpringTenantResolver} reads them.
 * </ol>
 *
 * Loaded only with spring-webflux.
 */
final class WebFluxIdentity {
  private WebFluxIdentity() {}

  /** The exchange attribute that holds what {@link CaptureFilter} found. */
  static final String ATTRIBUTE = WebFluxIdentity.class.getName() + ".principal";

  /** What the filter found: the principal's tenant, or none (read, and there was no principal). */
  private record Principal(String tenant) {}

  /**
   * Runs after Spring Security's filter chain (its order is {@code -100}; this one is the lowest
   * precedence), on every POST (the requests that carry MCP calls): the authenticated principal's
   * tenant, or none. A request whose Reactor context has no security context at all (no security
   * filter chain ran before this one) gets no attribute, so its principal is not "none" but
   * unreadable, and a call that needs it is refused instead of falling back to the next source.
   */
  static final class CaptureFilter implements WebFilter, Ordered {
    @Override
    public int getOrder() {
      return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
      if (!HttpMethod.POST.equals(exchange.getRequest().getMethod())) {
        return chain.filter(exchange);
      }
      return Mono.deferContextual(
          reactor -> {
            if (!SpringTenantResolver.SECURITY) {
              exchange.getAttributes().put(ATTRIBUTE, new Principal(null));
              return chain.filter(exchange);
            }
            if (!RequestIdentity.ReactivePrincipals.has(reactor)) {
              return chain.filter(exchange); // no security filter ran before: unreadable
            }
            return RequestIdentity.ReactivePrincipals.current()
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .flatMap(
                    tenant -> {
                      exchange.getAttributes().put(ATTRIBUTE, new Principal(tenant.orElse(null)));
                      return chain.filter(exchange);
                    });
          });
    }
  }

  /**
   * Wraps the context extractor of a WebFlux MCP transport (a field of type {@code
   * McpTransportContextExtractor<ServerRequest>}, as Spring AI's streamable, SSE and stateless
   * WebFlux transports have): the context it makes carries what was captured of the request too. A
   * transport whose extractor cannot be found this way is left as it is.
   *
   * @param transport an MCP server transport bean
   * @param header the tenant header ({@code mcpgate.tenant.header}), or null
   * @return true when the transport's extractor now captures the identity
   */
  static boolean install(Object transport, String header) {
    return TransportContexts.wrap(
        transport,
        ServerRequest.class,
        Capturing.class,
        original -> new Capturing(original, header));
  }

  /** The transport's extractor, and the captured identity on top. */
  record Capturing(McpTransportContextExtractor<ServerRequest> original, String header)
      implements McpTransportContextExtractor<ServerRequest> {
    @Override
    public McpTransportContext extract(ServerRequest request) {
      McpTransportContext base = original == null ? null : original.extract(request);
      Object seen = request.attributes().get(ATTRIBUTE);
      List<String> lines = header == null ? null : request.headers().header(header);
      RequestIdentity.Captured captured =
          seen instanceof Principal p
              ? new RequestIdentity.Captured(true, p.tenant(), lines)
              : new RequestIdentity.Captured(false, null, lines);
      return new CapturedContext(
          TransportContexts.withKeyHeader(
              base, request.headers().header(dev.mcpgate.mcp.KeySource.HEADER_CONTEXT_KEY)),
          captured);
    }
  }

  /** A transport context with the captured identity under {@link RequestIdentity#KEY}. */
  private record CapturedContext(McpTransportContext base, RequestIdentity.Captured captured)
      implements McpTransportContext {
    @Override
    public Object get(String key) {
      return RequestIdentity.KEY.equals(key) ? captured : base.get(key);
    }
  }
}
