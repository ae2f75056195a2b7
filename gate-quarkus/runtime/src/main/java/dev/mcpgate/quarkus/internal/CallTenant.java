package dev.mcpgate.quarkus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.quarkus.McpGateConfig;
import io.modelcontextprotocol.common.McpTransportContext;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.util.Base64;

/**
 * The tenant of a call, from the server side and tagged with its source: {@code constant:} and
 * {@code mcpgate.tenant.constant}, or else {@code principal:} and the authenticated principal, with
 * its token's issuer where it has one ({@link #tenantOf}). A source that finds nothing gives no
 * tenant, and the adapter refuses the call; there is no fallback from one source to another.
 */
@Singleton
public class CallTenant {
  /** The transport context entry that carries the tenant into the adapter. */
  static final String CONTEXT_KEY = "dev.mcpgate.quarkus/tenant";

  private static final ObjectMapper JSON = new ObjectMapper();

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
   * @param identity an authenticated identity, or null
   * @return its tenant, spelled as {@link TenantResolver#principal} spells it: with the issuer of
   *     its token where it carries one (a bearer JWT's {@code iss}, an OIDC login's), {@code
   *     %token} for a token that names none, and the name alone for a local user (no token); null
   *     for none, an anonymous one, or one without a name
   */
  static String tenantOf(SecurityIdentity identity) {
    if (identity == null || identity.isAnonymous() || identity.getPrincipal() == null) {
      return null;
    }
    String name = identity.getPrincipal().getName();
    if (name == null || name.isBlank()) {
      return null;
    }
    TokenCredential token = identity.getCredential(TokenCredential.class);
    return token == null
        ? TenantResolver.principal(null, null, name)
        : TenantResolver.principal(issuerOf(token.getToken()), TenantResolver.TOKEN_ORIGIN, name);
  }

  /**
   * @return the {@code iss} claim of a JWT (whose signature the mechanism that authenticated it
   *     checked), or null for a token that is no JWT or names no issuer
   */
  static String issuerOf(String token) {
    String[] parts = token == null ? new String[0] : token.split("\\.", -1);
    if (parts.length != 3) {
      return null;
    }
    try {
      JsonNode iss = JSON.readTree(Base64.getUrlDecoder().decode(parts[1])).get("iss");
      return iss != null && iss.isTextual() ? iss.asText() : null;
    } catch (IOException | IllegalArgumentException notAJwt) {
      return null;
    }
  }

  /** The adapter's tenant resolver: what {@link #current()} put into the transport context. */
  static String of(McpTransportContext context) {
    Object tenant = context == null ? null : context.get(CONTEXT_KEY);
    return tenant == null ? null : tenant.toString();
  }
}
