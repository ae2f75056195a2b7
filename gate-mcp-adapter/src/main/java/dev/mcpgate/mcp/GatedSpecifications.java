package dev.mcpgate.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The SDK's four kinds of tool specification, made anew around a {@link GatedTool}. A null
 * exchange, which the SDK never passes but a unit test calling a handler directly may, is read as
 * an empty transport context (as a null stateless context is): the handler gets the null as it
 * would ungated.
 */
final class GatedSpecifications {
  private GatedSpecifications() {}

  private static McpTransportContext contextOf(McpSyncServerExchange exchange) {
    return exchange == null ? McpTransportContext.EMPTY : exchange.transportContext();
  }

  private static McpTransportContext contextOf(McpAsyncServerExchange exchange) {
    return exchange == null ? McpTransportContext.EMPTY : exchange.transportContext();
  }

  static McpServerFeatures.SyncToolSpecification of(
      GatedTool g, McpServerFeatures.SyncToolSpecification spec) {
    var handler = spec.callHandler();
    return new McpServerFeatures.SyncToolSpecification(
        g.tool(),
        (exchange, request) ->
            sync(g, contextOf(exchange), request, r -> handler.apply(exchange, r)));
  }

  static McpServerFeatures.AsyncToolSpecification of(
      GatedTool g, McpServerFeatures.AsyncToolSpecification spec) {
    var handler = spec.callHandler();
    return new McpServerFeatures.AsyncToolSpecification(
        g.tool(),
        (exchange, request) ->
            async(g, contextOf(exchange), request, r -> handler.apply(exchange, r)));
  }

  static McpStatelessServerFeatures.SyncToolSpecification of(
      GatedTool g, McpStatelessServerFeatures.SyncToolSpecification spec) {
    var handler = spec.callHandler();
    return new McpStatelessServerFeatures.SyncToolSpecification(
        g.tool(), (context, request) -> sync(g, context, request, r -> handler.apply(context, r)));
  }

  static McpStatelessServerFeatures.AsyncToolSpecification of(
      GatedTool g, McpStatelessServerFeatures.AsyncToolSpecification spec) {
    var handler = spec.callHandler();
    return new McpStatelessServerFeatures.AsyncToolSpecification(
        g.tool(), (context, request) -> async(g, context, request, r -> handler.apply(context, r)));
  }

  /** A sync tool whose handler writes through a unit of work. */
  static McpServerFeatures.SyncToolSpecification writing(
      GatedTool g, Function<McpSyncServerExchange, Invocation> invocation) {
    return new McpServerFeatures.SyncToolSpecification(
        g.tool(),
        (exchange, request) -> g.call(contextOf(exchange), request, invocation.apply(exchange)));
  }

  private static CallToolResult sync(
      GatedTool g,
      McpTransportContext context,
      CallToolRequest request,
      Function<CallToolRequest, CallToolResult> handler) {
    return g.call(context, request, new Invocation.Direct(handler));
  }

  /**
   * The tenant is resolved where the call arrives (the transport's thread, the caller's Reactor
   * context), where it can be seen; the claim, the handler and the completion then run on
   * bounded-elastic, never on the caller's event thread.
   */
  private static Mono<CallToolResult> async(
      GatedTool g,
      McpTransportContext context,
      CallToolRequest request,
      Function<CallToolRequest, Mono<CallToolResult>> handler) {
    return g.resolveTenantReactive(context)
        .flatMap(
            tenant ->
                Mono.fromCallable(
                        () ->
                            g.call(
                                context,
                                tenant,
                                request,
                                new Invocation.Direct(r -> handler.apply(r).block())))
                    .subscribeOn(Schedulers.boundedElastic()));
  }
}
