package dev.mcpgate.spring;

import dev.mcpgate.mcp.TenantResolver;
import io.modelcontextprotocol.common.McpTransportContext;
import org.springframework.util.ClassUtils;

/**
 * The tenant of a call, from the server side only: the authenticated Spring Security principal's
 * name, else a configured request header (set by a trusted gateway), else a configured constant.
 * With none of them, null: the adapter refuses the call ({@code tenant_unknown}), never guessing.
 * Spring AI runs a servlet server's tool handlers on the request's thread, which is how the
 * security context and the request are seen here.
 */
final class SpringTenantResolver implements TenantResolver {
  private static final boolean SECURITY = ClassUtils.isPresent(
      "org.springframework.security.core.context.SecurityContextHolder",
      SpringTenantResolver.class.getClassLoader());
  private static final boolean SERVLET = ClassUtils.isPresent(
      "org.springframework.web.context.request.RequestContextHolder",
      SpringTenantResolver.class.getClassLoader())
      && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest",
          SpringTenantResolver.class.getClassLoader());

  private final McpGateProperties.Tenant config;

  SpringTenantResolver(McpGateProperties.Tenant config) {
    this.config = config;
  }

  @Override
  public String resolve(McpTransportContext context) {
    if (config.isFromPrincipal() && SECURITY) {
      String principal = Principals.current();
      if (principal != null) {
        return principal;
      }
    }
    if (config.getHeader() != null && SERVLET) {
      String header = Headers.current(config.getHeader());
      if (header != null && !header.isBlank()) {
        return header;
      }
    }
    return config.getConstant();
  }

  /** Loaded only with Spring Security. */
  private static final class Principals {
    static String current() {
      var auth = org.springframework.security.core.context.SecurityContextHolder.getContext()
          .getAuthentication();
      if (auth == null || !auth.isAuthenticated() || auth.getName() == null
          || auth instanceof org.springframework.security.authentication
              .AnonymousAuthenticationToken) {
        return null;
      }
      return auth.getName();
    }
  }

  /** Loaded only in a servlet application. */
  private static final class Headers {
    static String current(String name) {
      var attributes = org.springframework.web.context.request.RequestContextHolder
          .getRequestAttributes();
      if (attributes instanceof org.springframework.web.context.request.ServletRequestAttributes
          servlet) {
        return servlet.getRequest().getHeader(name);
      }
      return null;
    }
  }
}
