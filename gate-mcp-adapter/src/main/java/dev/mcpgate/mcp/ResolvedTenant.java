package dev.mcpgate.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import reactor.core.publisher.Mono;

/**
 * A call's tenant as resolved where the call arrived: its name, none, or what the resolver threw
 * (the server's failure, not the caller's to fix).
 *
 * @param name the tenant, or null when the resolver gave none or threw
 * @param failure what the resolver threw, or null
 */
record ResolvedTenant(String name, Throwable failure) {
  private static final ResolvedTenant NONE = new ResolvedTenant(null, null);

  /**
   * @return the call's tenant, resolved on this thread
   */
  static ResolvedTenant of(TenantResolver tenants, McpTransportContext context) {
    try {
      return new ResolvedTenant(tenants.resolve(orEmpty(context)), null);
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError vm) {
        throw vm;
      }
      return new ResolvedTenant(null, e);
    }
  }

  /**
   * @return the call's tenant, resolved on the subscribing thread with the subscriber's Reactor
   *     context (async tools: where the call arrives, before any scheduler hop)
   */
  static Mono<ResolvedTenant> reactive(TenantResolver tenants, McpTransportContext context) {
    return Mono.defer(() -> tenants.resolveReactive(orEmpty(context)))
        .map(name -> new ResolvedTenant(name, null))
        .defaultIfEmpty(NONE)
        .onErrorResume(
            e -> !(e instanceof VirtualMachineError), e -> Mono.just(new ResolvedTenant(null, e)));
  }

  private static McpTransportContext orEmpty(McpTransportContext context) {
    return context == null ? McpTransportContext.EMPTY : context;
  }
}
