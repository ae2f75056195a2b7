package dev.mcpgate.quarkus.internal;

import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.spi.runtime.SecurityCheck;
import io.quarkus.security.spi.runtime.SecurityCheckStorage;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import java.lang.reflect.Method;

/**
 * Checks a gated tool method's security constraints ({@code @RolesAllowed}, {@code
 * PermissionsAllowed}, {@code @Authenticated}, {@code @DenyAll}) before the gate decides, on every
 * arrival: the gate runs outside Quarkus' security interceptors (so that it also stays outside
 * {@code @Transactional}), and a replay it answers never reaches them. Without this check a caller
 * the method refuses, sharing a tenant with one it allows, would be handed that caller's stored
 * result. The interceptors inside still check the calls that run.
 */
@Singleton
public class ToolSecurity {
  private final Instance<SecurityCheckStorage> checks;
  private final Instance<SecurityIdentity> identities;

  ToolSecurity(Instance<SecurityCheckStorage> checks, Instance<SecurityIdentity> identities) {
    this.checks = checks;
    this.identities = identities;
  }

  /**
   * @throws RuntimeException the security check's own refusal ({@code UnauthorizedException},
   *     {@code ForbiddenException}), as the method's interceptor would throw it
   */
  void check(Method method, Object[] parameters) {
    if (!checks.isResolvable()) {
      return;
    }
    SecurityCheck check = checks.get().getSecurityCheck(method);
    if (check == null || check.isPermitAll()) {
      return;
    }
    check.apply(identities.get(), method, parameters);
  }
}
