package dev.mcpgate.spring;

import dev.mcpgate.mcp.TenantResolver;
import java.util.List;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * What the request on this thread, or the caller's Reactor context, says of the caller: its
 * principal (with its issuer) and its headers. Each nested class names one optional library's
 * types, so it is loaded only where that library is present.
 */
final class RequestIdentity {
  private RequestIdentity() {}

  /**
   * The {@link io.modelcontextprotocol.common.McpTransportContext} entry under which a WebFlux
   * transport's context carries what {@link WebFluxIdentity} captured where the request arrived.
   */
  static final String KEY = Captured.class.getName();

  /**
   * What was captured of a WebFlux request where it arrived, for a call that runs off it.
   *
   * @param principalRead whether the principal was read (after Spring Security's filters); false:
   *     it cannot be told, and a call that needs it is refused
   * @param principal the principal's tenant, or null for none (an anonymous caller)
   * @param header each line of the tenant header, or null for none
   */
  record Captured(boolean principalRead, String principal, List<String> header) {
    /**
     * @return what the transport context carries, or null when nothing was captured (not WebFlux,
     *     or a transport whose context extractor the starter could not wrap)
     */
    static Captured of(io.modelcontextprotocol.common.McpTransportContext context) {
      return context != null && context.get(KEY) instanceof Captured c ? c : null;
    }
  }

  /** Loaded only with Spring Security. */
  static final class Principals {
    /**
     * @return the tenant of the authenticated principal on this thread, or null
     */
    static String current() {
      return tenant(
          org.springframework.security.core.context.SecurityContextHolder.getContext()
              .getAuthentication());
    }

    /**
     * @return the tenant of an authenticated, named, not anonymous principal, with its issuer where
     *     it has one (marked {@code %name:} when its name is not its subject); else null
     */
    static String tenant(org.springframework.security.core.Authentication auth) {
      if (auth == null
          || !auth.isAuthenticated()
          || auth.getName() == null
          || auth.getName().isBlank()
          || auth
              instanceof org.springframework.security.authentication.AnonymousAuthenticationToken) {
        return null;
      }
      Object principal = auth.getPrincipal();
      if (!SpringTenantResolver.OAUTH2) {
        return TenantResolver.principal(null, null, auth.getName());
      }
      String origin = null;
      if (SpringTenantResolver.OAUTH2_CLIENT) {
        origin = Logins.registration(auth); // two logins' users of one name are two tenants
      }
      if (origin == null && Issuers.isToken(principal)) {
        origin = TenantResolver.TOKEN_ORIGIN;
      }
      String issuer = Issuers.of(principal);
      if (issuer != null && !auth.getName().equals(Issuers.subject(principal))) {
        // named by another claim than its subject (a login's username): a name a user may choose
        // is never another user's subject at the same issuer
        return TenantResolver.principal(null, "name:" + issuer, auth.getName());
      }
      return TenantResolver.principal(issuer, origin, auth.getName());
    }
  }

  /**
   * Loaded only with Spring Security's OAuth 2.0 core: the {@code iss} of a bearer JWT ({@code
   * JwtAuthenticationToken}'s principal), of an OIDC user, or of an introspected token.
   */
  static final class Issuers {
    /**
     * @return the token's issuer, or null when it names none or is no token
     */
    static String of(Object principal) {
      Object iss = claim(principal, "iss");
      return iss == null || iss.toString().isBlank() ? null : iss.toString();
    }

    /**
     * @return the token's subject ({@code sub}), or null when it names none or is no token
     */
    static String subject(Object principal) {
      Object sub = claim(principal, "sub");
      return sub == null ? null : sub.toString();
    }

    /** A claim of a JWT or OIDC user, or an attribute of an introspected token; else null. */
    private static Object claim(Object principal, String name) {
      if (principal instanceof org.springframework.security.oauth2.core.ClaimAccessor claims) {
        return claims.getClaims().get(name);
      }
      return principal
              instanceof org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal p
          ? p.getAttributes().get(name)
          : null;
    }

    static boolean isToken(Object principal) {
      return principal instanceof org.springframework.security.oauth2.core.ClaimAccessor
          || principal
              instanceof org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal;
    }
  }

  /** Loaded only with Spring Security's OAuth 2.0 client: the registration of a login. */
  static final class Logins {
    /**
     * @return {@code oauth2-client:} + the registration id of an OAuth 2.0 login, else null
     */
    static String registration(org.springframework.security.core.Authentication auth) {
      return auth
              instanceof
              org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken
                  login
          ? "oauth2-client:" + login.getAuthorizedClientRegistrationId()
          : null;
    }
  }

  /** Loaded only with Spring Security: the principal in the Reactor context (WebFlux). */
  static final class ReactivePrincipals {
    static boolean has(ContextView reactor) {
      return SpringTenantResolver.SECURITY
          && reactor.hasKey(org.springframework.security.core.context.SecurityContext.class);
    }

    static Mono<String> current() {
      return org.springframework.security.core.context.ReactiveSecurityContextHolder.getContext()
          .mapNotNull(c -> Principals.tenant(c.getAuthentication()));
    }
  }

  /** Loaded only in a servlet application. */
  static final class ServletHeaders {
    /**
     * @return each line of the header in the request on this thread, or null without a request
     */
    static boolean onRequest() {
      return org.springframework.web.context.request.RequestContextHolder.getRequestAttributes()
          instanceof org.springframework.web.context.request.ServletRequestAttributes;
    }

    static List<String> values(String name) {
      var attributes =
          org.springframework.web.context.request.RequestContextHolder.getRequestAttributes();
      if (attributes
          instanceof org.springframework.web.context.request.ServletRequestAttributes servlet) {
        java.util.Enumeration<String> lines = servlet.getRequest().getHeaders(name);
        return lines == null ? null : java.util.Collections.list(lines);
      }
      return null;
    }
  }

  /** Loaded only with spring-web's reactive API: the exchange a filter put in the context. */
  static final class ReactiveHeaders {
    /** Where Spring's {@code ServerWebExchangeContextFilter} puts it. */
    private static final String EXCHANGE_KEY =
        "org.springframework.web.filter.reactive.ServerWebExchangeContextFilter.EXCHANGE_CONTEXT";

    static boolean has(ContextView reactor) {
      return exchange(reactor) != null;
    }

    /**
     * @return each line of the header in the exchange's request, or null
     */
    static List<String> values(ContextView reactor, String name) {
      var exchange = exchange(reactor);
      return exchange == null ? null : exchange.getRequest().getHeaders().get(name);
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
