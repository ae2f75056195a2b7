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
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.security.cert.X509Certificate;

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
   * The tenant of an identity, spelled by {@link TenantResolver#principal} ({@code %} written
   * {@code %25} and {@code #} {@code %23} in each part), from what tells its user apart where it
   * came from:
   *
   * <ul>
   *   <li>made by quarkus-oidc (it names the OIDC tenant, {@code tenant-id}): {@code
   *       principal:%oidc:} + the tenant id (URL-encoded) + {@code :sub:} + the issuer + {@code #}
   *       + the JWT's subject, or {@code :name:} + the issuer + {@code #} + the name when there is
   *       no subject (an opaque token, a provider without ID tokens): a token another OIDC tenant
   *       checked is never this one's user, whatever issuer it names, and a name is never a
   *       subject;
   *   <li>a JWT from elsewhere (smallrye-jwt) with an {@code iss} and a {@code sub}: {@code
   *       principal:} + issuer + {@code #} + subject, as the Spring Boot starter spells it; without
   *       a subject, {@code principal:%jwt-name:} + issuer + {@code #} + name; without an issuer,
   *       as another token;
   *   <li>another identity that holds a token: {@code principal:%token#} + name;
   *   <li>a client certificate: {@code principal:%certificate:} + its issuer's DN + {@code #} + the
   *       subject's DN (a DN is unique only per issuing CA);
   *   <li>a local user (basic auth, a properties file): {@code principal:} + name.
   * </ul>
   *
   * Each is read from the principal and the identity's attributes and credentials by kind, never
   * from one of its token credentials, of which an OIDC login holds several.
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
    String issuer = jwt ? blankless(JsonWebTokens.issuer(principal)) : null;
    String subject = jwt ? blankless(JsonWebTokens.subject(principal)) : null;
    String name = subject != null ? subject : blankless(principal.getName());
    if (name == null) {
      return null;
    }
    String by = subject != null ? ":sub:" : ":name:";
    if (identity.getAttribute(OIDC_TENANT) instanceof String oidc && !oidc.isBlank()) {
      String id = URLEncoder.encode(oidc, StandardCharsets.UTF_8);
      return TenantResolver.principal(
          null, "oidc:" + id + by + (issuer == null ? "" : issuer), name);
    }
    if (issuer != null) {
      return subject != null
          ? TenantResolver.principal(issuer, null, name)
          : TenantResolver.principal(null, "jwt-name:" + issuer, name);
    }
    if (jwt || identity.getCredentials().stream().anyMatch(TokenCredential.class::isInstance)) {
      return TenantResolver.principal(null, TenantResolver.TOKEN_ORIGIN, name);
    }
    CertificateCredential certificate = identity.getCredential(CertificateCredential.class);
    if (certificate != null) {
      X509Certificate c = certificate.getCertificate();
      String ca = c == null ? "" : c.getIssuerX500Principal().getName();
      return TenantResolver.principal(null, "certificate:" + ca, name);
    }
    return TenantResolver.principal(null, null, name);
  }

  private static String blankless(String value) {
    return value == null || value.isBlank() ? null : value;
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
