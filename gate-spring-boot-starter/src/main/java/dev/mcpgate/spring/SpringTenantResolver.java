package dev.mcpgate.spring;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.spring.McpGateProperties.Tenant.Source;
import io.modelcontextprotocol.common.McpTransportContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Where the identity is read: on the servlet stack, from the request thread ({@code
 * SecurityContextHolder}, {@code RequestContextHolder}); the adapter resolves an async tool's
 * tenant there, before it hops to another scheduler. On WebFlux, from the Reactor context of the
 * call ({@code ReactiveSecurityContextHolder}, and the {@code ServerWebExchange} when a filter put
 * it there), which only async tool specifications see.
 */
final class SpringTenantResolver implements TenantResolver {
  private static final Logger LOG = LoggerFactory.getLogger(SpringTenantResolver.class);
  private static final ClassLoader LOADER = SpringTenantResolver.class.getClassLoader();
  private static final boolean SECURITY =
      ClassUtils.isPresent(
          "org.springframework.security.core.context.SecurityContextHolder", LOADER);
  private static final boolean SERVLET =
      ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder", LOADER)
          && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LOADER);
  private static final boolean REACTIVE_WEB =
      ClassUtils.isPresent("org.springframework.web.server.ServerWebExchange", LOADER);

  /** The properties that say where the tenant comes from, for the warnings. */
  static final String PROPERTIES =
      "mcpgate.tenant.header (a request header set by a trusted"
          + " gateway), mcpgate.tenant.constant (one tenant for every call), Spring Security's"
          + " authenticated principal (mcpgate.tenant.from-principal, true by default), or several"
          + " in order with mcpgate.tenant.sources";

  /** At most one refusal warning this often; the ones in between are counted into the next. */
  static final long WARN_EVERY_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(1);

  private final List<Source> order;
  private final String header;
  private final String constant;
  private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
  private final AtomicLong unwarned = new AtomicLong();

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
          PROPERTIES);
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

  @Override
  public String resolve(McpTransportContext context) {
    for (Source source : order) {
      String value =
          switch (source) {
            case PRINCIPAL -> Principals.current();
            case HEADER -> SERVLET ? ServletHeaders.current(header) : null;
            case CONSTANT -> constant;
          };
      if (value != null && !value.isBlank()) {
        return tag(source, value);
      }
    }
    refused();
    return null;
  }

  /**
   * A call gets no tenant, so the adapter refuses it ({@code tenant_unknown}): a WARN on the server
   * naming the properties, at most once a minute, with the count of the others.
   */
  void refused() {
    long more = unwarned.incrementAndGet();
    long last = lastWarning.get();
    long now = System.nanoTime();
    if (now - last >= WARN_EVERY_NANOS && lastWarning.compareAndSet(last, now)) {
      unwarned.addAndGet(-more);
      LOG.warn(
          "MCP Gate refused {} call(s) to gated tools with tenant_unknown since the last"
              + " warning: {} found no tenant for them{}. The tenant comes from {}",
          more,
          order.isEmpty() ? "no source is configured, and it" : "the source " + order,
          order.contains(Source.HEADER)
              ? " (is the header " + header + " missing?)"
              : order.contains(Source.PRINCIPAL) ? " (an anonymous caller?)" : "",
          PROPERTIES);
    }
  }

  /**
   * On the subscribing thread, with the caller's Reactor context: on WebFlux the principal (and,
   * where a filter put it there, the exchange) is there; on the servlet stack the thread-locals of
   * the request thread are.
   */
  @Override
  public Mono<String> resolveReactive(McpTransportContext context) {
    return Mono.deferContextual(
        reactor ->
            Flux.fromIterable(order)
                .concatMap(
                    source ->
                        find(source, reactor)
                            .filter(value -> !value.isBlank())
                            .map(value -> tag(source, value)))
                .next()
                .doOnSuccess(
                    tenant -> {
                      if (tenant == null) {
                        refused();
                      }
                    }));
  }

  private Mono<String> find(Source source, ContextView reactor) {
    return switch (source) {
      case PRINCIPAL ->
          ReactivePrincipals.has(reactor)
              ? ReactivePrincipals.current()
              : Mono.justOrEmpty(Principals.current());
      case HEADER -> {
        if (REACTIVE_WEB) {
          String fromExchange = ReactiveHeaders.current(reactor, header);
          if (fromExchange != null || ReactiveHeaders.has(reactor)) {
            yield Mono.justOrEmpty(fromExchange);
          }
        }
        yield Mono.justOrEmpty(SERVLET ? ServletHeaders.current(header) : null);
      }
      case CONSTANT -> Mono.justOrEmpty(constant);
    };
  }

  /** Loaded only with Spring Security. */
  private static final class Principals {
    static String current() {
      return name(
          org.springframework.security.core.context.SecurityContextHolder.getContext()
              .getAuthentication());
    }

    static String name(org.springframework.security.core.Authentication auth) {
      if (auth == null
          || !auth.isAuthenticated()
          || auth.getName() == null
          || auth
              instanceof org.springframework.security.authentication.AnonymousAuthenticationToken) {
        return null;
      }
      return auth.getName();
    }
  }

  /** Loaded only with Spring Security: the principal in the Reactor context (WebFlux). */
  private static final class ReactivePrincipals {
    static boolean has(ContextView reactor) {
      return SECURITY
          && reactor.hasKey(org.springframework.security.core.context.SecurityContext.class);
    }

    static Mono<String> current() {
      return org.springframework.security.core.context.ReactiveSecurityContextHolder.getContext()
          .mapNotNull(c -> Principals.name(c.getAuthentication()));
    }
  }

  /** Loaded only in a servlet application. */
  private static final class ServletHeaders {
    static String current(String name) {
      var attributes =
          org.springframework.web.context.request.RequestContextHolder.getRequestAttributes();
      if (attributes
          instanceof org.springframework.web.context.request.ServletRequestAttributes servlet) {
        return servlet.getRequest().getHeader(name);
      }
      return null;
    }
  }

  /** Loaded only with spring-web's reactive API: the exchange a filter put in the context. */
  private static final class ReactiveHeaders {
    /** Where Spring's {@code ServerWebExchangeContextFilter} puts it. */
    private static final String EXCHANGE_KEY =
        "org.springframework.web.filter.reactive.ServerWebExchangeContextFilter.EXCHANGE_CONTEXT";

    static boolean has(ContextView reactor) {
      return exchange(reactor) != null;
    }

    static String current(ContextView reactor, String name) {
      var exchange = exchange(reactor);
      return exchange == null ? null : exchange.getRequest().getHeaders().getFirst(name);
    }

    private static org.springframework.web.server.ServerWebExchange exchange(ContextView reactor) {
      // Spring Security's ServerWebExchangeReactorContextWebFilter, or Spring's context filter
      Object e =
          reactor.getOrDefault(
              org.springframework.web.server.ServerWebExchange.class,
              reactor.getOrDefault(EXCHANGE_KEY, null));
      return e instanceof org.springframework.web.server.ServerWebExchange exchange
          ? exchange
          : null;
    }
  }
}
