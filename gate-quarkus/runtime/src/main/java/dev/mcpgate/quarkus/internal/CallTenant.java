package dev.mcpgate.quarkus.internal;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.quarkus.McpGateConfig;
import io.modelcontextprotocol.common.McpTransportContext;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

/**
 * The tenant of a call, from the server side and tagged with its source: {@code constant:} and
 * {@code mcpgate.tenant.constant}, or else {@code principal:} and the authenticated principal's
 * name. A source that finds nothing gives no tenant, and the adapter refuses the call; there is no
 * fallback from one source to another.
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
    SecurityIdentity identity = identities.get();
    if (identity == null || identity.isAnonymous() || identity.getPrincipal() == null) {
      return null;
    }
    String name = identity.getPrincipal().getName();
    return name == null || name.isBlank() ? null : "principal:" + name;
  }

  /** The adapter's tenant resolver: what {@link #current()} put into the transport context. */
  static String of(McpTransportContext context) {
    Object tenant = context == null ? null : context.get(CONTEXT_KEY);
    return tenant == null ? null : tenant.toString();
  }
}
