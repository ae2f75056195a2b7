package dev.mcpgate.spring;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.spring.McpGateProperties.Tenant.Source;
import io.modelcontextprotocol.common.McpTransportContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The tenant of a call, from the server side only: the authenticated Spring Security principal's
 * name, a configured request header (set by a trusted gateway), or a configured constant.
 *
 * <p>One source, unless {@code mcpgate.tenant.sources} lists several in order: without it, the
 * first configured of principal (Spring Security on the class path and {@code
 * mcpgate.tenant.from-principal}, true by default), header and constant is the only one. A source
 * that finds nothing gives no tenant, and the adapter refuses the call ({@code tenant_unknown}); it
 * never falls back to a source the user did not list after it.
 *
 * <p>Each tenant carries its source: {@code principal:acme}, {@code header:acme} and {@code
 * constant:acme} are three tenants, so a header can never reach a principal's results.
 *
 * <p>A principal's tenant names its issuer where the authentication has one (a bearer JWT's {@code
 * iss}, an OIDC user's, an introspected token's): {@code principal:} + issuer + {@code #} + name,
 * else {@code principal:} + name; in both parts {@code %} is written {@code %25} and {@code #}
 * {@code %23}, so a raw {@code #} is there exactly when an issuer is, and no two (issuer, name)
 * pairs give one tenant ({@link TenantResolver#principal}). Two identity providers' "alice" are two
 * tenants.
 *
 * <p>A header sent more than once gives no tenant: the call is refused ({@code tenant_unknown}),
 * never answered with the first value nor with the next source. A client that adds its own header
 * to the one a gateway sets cannot choose which one is read.
 *
 * <p>Where the identity is read: on the servlet stack, from the request thread ({@code
 * SecurityContextHolder}, {@code RequestContextHolder}); the adapter resolves an async tool's
 * tenant there, before it hops to another scheduler. On WebFlux, from what {@link WebFluxIdentity}
 * captured where the request arrived and the transport put in the call's {@link
 * McpTransportContext} (sync and async tools alike); without it, from the Reactor context of the
 * call ({@code ReactiveSecurityContextHolder}, and the {@code ServerWebExchange} when a filter put
 * it there), which only async tool specifications see.
 */
final class SpringTenantResolver implements TenantResolver {
  private static final Logger LOG = LoggerFactory.getLogger(SpringTenantResolver.class);
  private static final ClassLoader LOADER = SpringTenantResolver.class.getClassLoader();
  static final boolean SECURITY =
      ClassUtils.isPresent(
          "org.springframework.security.core.context.SecurityContextHolder", LOADER);
  private static final boolean SERVLET =
      ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder", LOADER)
          && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LOADER);
  private static final boolean REACTIVE_WEB =
      ClassUtils.isPresent("org.springframework.web.server.ServerWebExchange", LOADER);
  static final boolean OAUTH2 =
      SECURITY
          && ClassUtils.isPresent("org.springframework.security.oauth2.core.ClaimAccessor", LOADER);
  static final boolean OAUTH2_CLIENT =
      OAUTH2
          && ClassUtils.isPresent(
              "org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken",
              LOADER);

  private final List<Source> order;
  private final String header;
  private final String constant;
  private final TenantWarnings warnings;

  SpringTenantResolver(McpGateProperties.Tenant config) {
    this.header =
        config.getHeader() == null || config.getHeader().isBlank()
            ? null
            : config.getHeader().trim();
    // an empty value (mcpgate.tenant.constant=) is no source at all, and is warned of as such
    this.constant =
        config.getConstant() == null || config.getConstant().isBlank()
            ? null
            : config.getConstant();
    this.order = order(config, header, constant);
    this.warnings = new TenantWarnings(order, header);
    if (constant != null) {
      ClaimId.validate(
          tag(Source.CONSTANT, constant),
          "mcpgate.tenant.constant (with its" + " source prefix \"constant:\")");
    }
    List<String> unused = new ArrayList<>();
    if (header != null && !order.contains(Source.HEADER)) {
      unused.add("mcpgate.tenant.header");
    }
    if (constant != null && !order.contains(Source.CONSTANT)) {
      unused.add("mcpgate.tenant.constant");
    }
    if (order.isEmpty()) {
      LOG.warn(
          "MCP Gate has no tenant source, so every call to a gated tool will be refused"
              + " with tenant_unknown and nothing runs. Configure one: {}",
          TenantWarnings.PROPERTIES);
    } else {
      LOG.info("MCP Gate takes the tenant from {}", order);
    }
    if (!unused.isEmpty()) {
      LOG.warn(
          "{} set but not used: the tenant comes from {} only, and a call where it finds"
              + " nothing is refused. To fall back on another source, list the sources in order in"
              + " mcpgate.tenant.sources (for example principal,header)",
          unused,
          order);
    }
  }

  /**
   * @return the sources to ask, in order: the listed ones, else the first configured one
   */
  private static List<Source> order(
      McpGateProperties.Tenant config, String header, String constant) {
    List<Source> listed = config.getSources();
    if (listed.isEmpty()) {
      if (config.isFromPrincipal() && SECURITY) {
        return List.of(Source.PRINCIPAL);
      }
      if (header != null) {
        return List.of(Source.HEADER);
      }
      return constant == null ? List.of() : List.of(Source.CONSTANT);
    }
    List<Source> order = new ArrayList<>();
    for (Source s : listed) {
      if (s == Source.PRINCIPAL && !SECURITY) {
        throw new IllegalStateException(
            "mcpgate.tenant.sources lists principal, but Spring"
                + " Security is not on the class path");
      }
      if (s == Source.HEADER && header == null) {
        throw new IllegalStateException(
            "mcpgate.tenant.sources lists header, but" + " mcpgate.tenant.header is not set");
      }
      if (s == Source.CONSTANT && constant == null) {
        throw new IllegalStateException(
            "mcpgate.tenant.sources lists constant, but" + " mcpgate.tenant.constant is not set");
      }
      if (!order.contains(s)) {
        order.add(s);
      }
    }
    return List.copyOf(order);
  }

  /**
   * @return the sources asked, in order
   */
  List<Source> sources() {
    return order;
  }

  private static String tag(Source source, String value) {
    return source.name().toLowerCase(Locale.ROOT) + ":" + value;
  }

  /** What one source gave: a tenant, or a refusal that ends the search ({@code tenant} null). */
  private record Found(String tenant) {
    static final Found REFUSED = new Found(null);
  }

  /**
   * @param values the values of the header in this request (each line), or null for none
   * @return its tenant; {@link Found#REFUSED} for a header sent more than once; null for none
   */
  private Found fromHeader(List<String> values) {
    if (values == null || values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      warnings.repeatedHeader(values.size());
      return Found.REFUSED;
    }
    String value = values.get(0);
    return value == null || value.isBlank() ? null : new Found(tag(Source.HEADER, value));
  }

  private static Found found(String tenant) {
    return tenant == null ? null : new Found(tenant);
  }

  @Override
  public String resolve(McpTransportContext context) {
    RequestIdentity.Captured captured = RequestIdentity.Captured.of(context);
    for (Source source : order) {
      Found found =
          captured != null
              ? fromCaptured(source, captured)
              : switch (source) {
                case PRINCIPAL -> {
                  String tenant = RequestIdentity.Principals.current();
                  yield tenant != null
                      ? new Found(tenant)
                      : onServletRequest() ? null : unreadable(source);
                }
                case HEADER ->
                    onServletRequest()
                        ? fromHeader(RequestIdentity.ServletHeaders.values(header))
                        : unreadable(source);
                case CONSTANT -> new Found(tag(Source.CONSTANT, constant));
              };
      if (found != null) {
        if (found.tenant() == null) {
          return null; // refused: no fallback to the next source, and no "no tenant" warning
        }
        return found.tenant();
      }
    }
    warnings.refused();
    return null;
  }

  /**
   * A source read from what the WebFlux transport's context captured where the request arrived
   * ({@link WebFluxIdentity}): the principal Spring Security authenticated (none for an anonymous
   * caller, so the next source is asked; unreadable when no security filter ran before the capture)
   * and the tenant header's lines. Sync and async tools alike.
   */
  private Found fromCaptured(Source source, RequestIdentity.Captured captured) {
    return switch (source) {
      case PRINCIPAL -> captured.principalRead() ? found(captured.principal()) : unreadable(source);
      case HEADER -> fromHeader(captured.header());
      case CONSTANT -> new Found(tag(Source.CONSTANT, constant));
    };
  }

  /**
   * @return whether this thread serves a servlet request, whose principal and headers the sync path
   *     can read
   */
  private static boolean onServletRequest() {
    return SERVLET && RequestIdentity.ServletHeaders.onRequest();
  }

  /**
   * A source that cannot be read where the call runs (on WebFlux, a request that passed no security
   * filter before the capture, or a sync tool whose transport context carries no capture; an async
   * tool whose Reactor context holds no exchange; no HTTP request at all): not "found nothing",
   * which would let the next source answer (a constant, shared by every caller), but a refusal,
   * with a WARN at most once a minute.
   */
  private Found unreadable(Source source) {
    warnings.unreadable(source);
    return Found.REFUSED;
  }

  /**
   * On the subscribing thread, with the caller's Reactor context: on WebFlux the principal (and,
   * where a filter put it there, the exchange) is there; on the servlet stack the thread-locals of
   * the request thread are.
   */
  @Override
  public Mono<String> resolveReactive(McpTransportContext context) {
    RequestIdentity.Captured captured = RequestIdentity.Captured.of(context);
    return Mono.deferContextual(
        reactor ->
            Flux.fromIterable(order)
                .concatMap(source -> find(source, reactor, captured))
                .next()
                .doOnSuccess(
                    found -> {
                      if (found == null) {
                        warnings.refused();
                      }
                    })
                .mapNotNull(Found::tenant));
  }

  private Mono<Found> find(Source source, ContextView reactor, RequestIdentity.Captured captured) {
    if (captured != null) {
      return Mono.justOrEmpty(fromCaptured(source, captured));
    }
    return switch (source) {
      case PRINCIPAL -> {
        if (RequestIdentity.ReactivePrincipals.has(reactor)) {
          yield RequestIdentity.ReactivePrincipals.current().map(Found::new);
        }
        String tenant = RequestIdentity.Principals.current();
        yield Mono.justOrEmpty(
            tenant != null ? new Found(tenant) : onServletRequest() ? null : unreadable(source));
      }
      case HEADER -> {
        if (REACTIVE_WEB && RequestIdentity.ReactiveHeaders.has(reactor)) {
          yield Mono.justOrEmpty(
              fromHeader(RequestIdentity.ReactiveHeaders.values(reactor, header)));
        }
        yield Mono.justOrEmpty(
            onServletRequest()
                ? fromHeader(RequestIdentity.ServletHeaders.values(header))
                : unreadable(source));
      }
      case CONSTANT -> Mono.just(new Found(tag(Source.CONSTANT, constant)));
    };
  }
}
