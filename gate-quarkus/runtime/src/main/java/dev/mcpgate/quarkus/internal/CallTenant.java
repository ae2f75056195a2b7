package dev.mcpgate.quarkus.internal;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.quarkus.McpGateConfig;
import io.modelcontextprotocol.common.McpTransportContext;
import io.quarkus.security.credential.CertificateCredential;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import java.security.Principal;

/**
 * The tenant of a call, from the server side and tagged with its source: {@code constant:} and
 * {@code mcpgate.tenant.constant}, or else {@code principal:} and the authenticated principal, with
 * its issuer where it is a JWT ({@link #tenantOf}). A source that finds nothing gives no tenant,
 * and the adapter refuses the call; there is no fallback from one source to another.
 */
@Singleton
public class CallTenant {
  /** The transport context entry that carries the tenant into the adapter. */
  static final String CONTEXT_KEY = "dev.mcpgate.quarkus/tenant";

  private final String constant;
  private final boolean fromPrincipal;
  private final Instance<SecurityIdentity> identities;

  CallTenant(McpGateConfig config, Instance<SecurityIdentity> identities) {
    this.constant = config.tenant().constant().map(CallTenant::constant).orElse(null);
    this.fromPrincipal = config.tenant().fromPrincipal();
    this.identities = identities;
  }

  private static String constant(String value) {
    ClaimId.validate(value, "mcpgate.tenant.constant");
    String tagged = "constant:" + value;
    ClaimId.validate(tagged, "mcpgate.tenant.constant (with its source prefix \"constant:\")");
    return tagged;
  }

  /**
   * @return the tenant of the call on this thread, or null when its source finds none
   */
  String current() {
    if (constant != null) {
      return constant;
    }
    if (!fromPrincipal || !identities.isResolvable()) {
      return null;
    }
    return tenantOf(identities.get());
  }

  /**
   * The tenant of an identity, spelled as {@link TenantResolver#principal} spells it, from what
   * tells its user apart where it came from:
   *
   * <ul>
   *   <li>a principal that is a JWT (MicroProfile JWT's {@code JsonWebToken}: a bearer token, an
   *       OIDC login's ID token) with an {@code iss}: the issuer and the token's subject ({@code
   *       sub}, unique per user of an issuer; its name where it has none), not its name, which
   *       quarkus-oidc takes from a configured claim that may be a display name;
   *   <li>without an issuer: the name, after where it came from: the identity's quarkus-oidc tenant
   *       ({@code %oidc:} + its {@code tenant-id}), else {@code %token} for a JWT or an identity
   *       that holds a token, else {@code %certificate} for a client certificate; and the name
   *       alone for a local user (basic auth, a properties file).
   * </ul>
   *
   * Each is read from the principal, one object, and from the identity's attributes, never from one
   * of its token credentials, of which an OIDC login holds several.
   *
   * @param identity an authenticated identity, or null
   * @return its tenant; null for none, an anonymous one, or one without a name
   */
  static String tenantOf(SecurityIdentity identity) {
    if (identity == null || identity.isAnonymous() || identity.getPrincipal() == null) {
      return null;
    }
    Principal principal = identity.getPrincipal();
    boolean jwt = JsonWebTokens.PRESENT && JsonWebTokens.is(principal);
    String issuer = jwt ? JsonWebTokens.issuer(principal) : null;
    String subject = jwt ? JsonWebTokens.subject(principal) : null;
    String name = subject != null && !subject.isBlank() ? subject : principal.getName();
    if (name == null || name.isBlank()) {
      return null;
    }
    return TenantResolver.principal(issuer, origin(identity, jwt), name);
  }

  /** Where a principal without an issuer came from; null for a local user. */
  private static String origin(SecurityIdentity identity, boolean jwt) {
    if (identity.getAttribute(OIDC_TENANT) instanceof String tenant && !tenant.isBlank()) {
      return "oidc:" + tenant;
    }
    if (jwt || identity.getCredentials().stream().anyMatch(TokenCredential.class::isInstance)) {
      return TenantResolver.TOKEN_ORIGIN;
    }
    return identity.getCredentials().stream().anyMatch(CertificateCredential.class::isInstance)
        ? "certificate"
        : null;
  }

  /** The attribute quarkus-oidc names the OIDC tenant of an identity it made by. */
  static final String OIDC_TENANT = "tenant-id";

  /** MicroProfile JWT, when on the class path (quarkus-oidc, quarkus-smallrye-jwt). */
  private static final class JsonWebTokens {
    static final boolean PRESENT = present();

    private static boolean present() {
      try {
        Class.forName(
            "org.eclipse.microprofile.jwt.JsonWebToken", false, CallTenant.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException | LinkageError absent) {
        return false;
      }
    }

    static boolean is(Principal principal) {
      return principal instanceof org.eclipse.microprofile.jwt.JsonWebToken;
    }

    static String issuer(Principal principal) {
      return ((org.eclipse.microprofile.jwt.JsonWebToken) principal).getIssuer();
    }

    static String subject(Principal principal) {
      return ((org.eclipse.microprofile.jwt.JsonWebToken) principal).getSubject();
    }
  }

  /** The adapter's tenant resolver: what {@link #current()} put into the transport context. */
  static String of(McpTransportContext context) {
    Object tenant = context == null ? null : context.get(CONTEXT_KEY);
    return tenant == null ? null : tenant.toString();
  }
}
