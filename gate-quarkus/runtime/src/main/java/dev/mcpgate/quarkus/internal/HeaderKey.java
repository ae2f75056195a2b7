package dev.mcpgate.quarkus.internal;

import dev.mcpgate.mcp.KeySource;
import io.quarkus.arc.Arc;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * The {@code Idempotency-Key} header of the HTTP request that carries the current tool call. The
 * MCP server's HTTP transports (Streamable HTTP, SSE) make that request current in each call's
 * request context; a call over stdio or WebSocket has none. Used only for a tool whose key sources
 * list the header, which builds only beside the HTTP transport, so {@code quarkus-vertx-http}
 * (optional for the extension) is then present.
 */
final class HeaderKey {
  private HeaderKey() {}

  /**
   * Called only for a call this invocation serves, which runs in an active request context.
   *
   * @return the header's values on the current call's HTTP request, as sent; empty when there is no
   *     such request or it has no such header
   */
  static List<String> current() {
    RoutingContext routing = Arc.container().instance(CurrentVertxRequest.class).get().getCurrent();
    return routing == null
        ? List.of()
        : routing.request().headers().getAll(KeySource.HEADER_CONTEXT_KEY);
  }
}
