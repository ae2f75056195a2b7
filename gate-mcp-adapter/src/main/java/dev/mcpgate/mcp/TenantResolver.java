package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.ClaimId;
import io.modelcontextprotocol.common.McpTransportContext;
import reactor.core.publisher.Mono;

/**
 * Says which tenant a call belongs to, from the server side: the MCP transport context (which an
 * HTTP transport's context extractor fills from the authenticated request) or a constant for a
 * single-user stdio server. Never from the tool arguments. A resolver that returns null or blank
 * makes the adapter refuse the call (fail closed).
 *
 * <p>Each tenant carries its source as a prefix: {@link #fixed} gives {@code constant:} and the
 * value, {@link #fromTransportContext} gives {@code context:} and the value, and the Spring Boot
 * starter gives {@code principal:}, {@code header:} and {@code constant:}. The same text from two
 * sources is then two tenants: a value that a transport context carries cannot read as another
 * server's principal when two servers with different resolvers share one claims store. A resolver
 * of your own should tag its values the same way, with a source name of its own.
 */
@FunctionalInterface
public interface TenantResolver {

  /**
   * @param context the transport context of the call ({@link McpTransportContext#EMPTY} on stdio)
   * @return the tenant, or null when it cannot be told
   */
  String resolve(McpTransportContext context);

  /**
   * The tenant of a call to an async tool specification. The adapter subscribes to it where the
   * call arrives: on the transport's thread, before it hops to another scheduler, and with the
   * caller's Reactor context (where a reactive server such as Spring WebFlux keeps the
   * authenticated principal). A resolver that reads the Reactor context overrides this; by default
   * it is {@link #resolve} on the subscribing thread.
   *
   * @param context the transport context of the call
   * @return the tenant, or empty when it cannot be told
   */
  default Mono<String> resolveReactive(McpTransportContext context) {
    return Mono.fromSupplier(() -> resolve(context));
  }

  /**
   * @param tenant the one tenant of a single-user server (a stdio server); stored as {@code
   *     constant:} and the value, like the Spring Boot starter's {@code mcpgate.tenant.constant}
   * @return a resolver that always gives it
   * @throws dev.mcpgate.core.InvalidIdempotencyKeyException if the tenant is not a valid tenant
   *     (blank, a control character), or too long with its prefix
   */
  static TenantResolver fixed(String tenant) {
    ClaimId.validate(tenant, "tenant");
    String tagged = "constant:" + tenant;
    ClaimId.validate(tagged, "tenant (with its source prefix \"constant:\")");
    return context -> tagged;
  }

  /**
   * The tenant of an authenticated principal, as the Spring Boot starter and the Quarkus extension
   * spell it: {@code principal:} + name for a local user, {@code principal:} + issuer + {@code #} +
   * name for a principal whose authentication names an issuer (a JWT's {@code iss}), and {@code
   * principal:%} + origin + {@code #} + name for one with no issuer that is no local user ({@code
   * %token} for a token). In every part {@code %} is written {@code %25} and {@code #} {@code %23},
   * so a raw {@code #} separates the issuer or origin from the name, no origin reads as an issuer,
   * and two users of one name from two sources are two tenants.
   *
   * @param issuer the issuer, or null or blank for none
   * @param origin for a principal with no issuer: null for a local user, else where it came from
   *     ({@link #TOKEN_ORIGIN} for a token, {@code oauth2-client:} + a registration id)
   * @param name the principal's name
   * @return the tenant
   */
  static String principal(String issuer, String origin, String name) {
    if (issuer != null && !issuer.isBlank()) {
      return "principal:" + escape(issuer) + "#" + escape(name);
    }
    return origin != null
        ? "principal:%" + escape(origin) + "#" + escape(name)
        : "principal:" + escape(name);
  }

  /** The origin of a token's principal (a JWT, an introspected token) that names no issuer. */
  String TOKEN_ORIGIN = "token";

  private static String escape(String part) {
    return part.replace("%", "%25").replace("#", "%23");
  }

  /**
   * @param key the transport context entry that the HTTP transport's context extractor set from the
   *     authenticated request (for example {@code "tenant"})
   * @return a resolver that reads it (as a string) and gives {@code context:} and the value; no
   *     tenant (the call is refused) when the entry is missing or blank
   */
  static TenantResolver fromTransportContext(String key) {
    requireNonNull(key, "key must not be null");
    return context -> {
      Object value = context == null ? null : context.get(key);
      String text = value == null ? null : value.toString();
      // a blank value is no tenant: with the prefix it would pass as one
      return text == null || text.isBlank() ? null : "context:" + text;
    };
  }
}
