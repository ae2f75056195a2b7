package dev.mcpgate.mcp;

import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.spi.DaemonThreads;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
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
      GatedTool g, McpServerFeatures.AsyncToolSpecification spec, Scheduler waits) {
    var handler = spec.callHandler();
    return new McpServerFeatures.AsyncToolSpecification(
        g.tool(),
        (exchange, request) ->
            async(g, contextOf(exchange), request, r -> handler.apply(exchange, r), waits));
  }

  static McpStatelessServerFeatures.SyncToolSpecification of(
      GatedTool g, McpStatelessServerFeatures.SyncToolSpecification spec) {
    var handler = spec.callHandler();
    return new McpStatelessServerFeatures.SyncToolSpecification(
        g.tool(), (context, request) -> sync(g, context, request, r -> handler.apply(context, r)));
  }

  static McpStatelessServerFeatures.AsyncToolSpecification of(
      GatedTool g, McpStatelessServerFeatures.AsyncToolSpecification spec, Scheduler waits) {
    var handler = spec.callHandler();
    return new McpStatelessServerFeatures.AsyncToolSpecification(
        g.tool(),
        (context, request) -> async(g, context, request, r -> handler.apply(context, r), waits));
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
    return g.call(context, request, new Invocation.Direct(handler::apply));
  }

  /**
   * The tenant is resolved where the call arrives (the transport's thread, the caller's Reactor
   * context), where it can be seen; the claim, the handler and the completion then run on {@code
   * waits} (the adapter's own scheduler, {@link #waits()}), never on the caller's event thread. The
   * handler's {@code Mono} runs with the caller's Reactor context, as it would ungated.
   */
  private static Mono<CallToolResult> async(
      GatedTool g,
      McpTransportContext context,
      CallToolRequest request,
      Function<CallToolRequest, Mono<CallToolResult>> handler,
      Scheduler waits) {
    return g.resolveTenantReactive(context)
        .flatMap(
            tenant ->
                Mono.deferContextual(
                    caller -> {
                      AtomicBoolean started = new AtomicBoolean();
                      return Mono.fromCallable(
                              () -> {
                                started.set(true);
                                return g.call(
                                    context,
                                    tenant,
                                    request,
                                    new Invocation.Direct(
                                        r -> awaited(handler.apply(r).contextWrite(caller))));
                              })
                          .subscribeOn(waits)
                          // refused by the waiting threads, not a handler's own rejection
                          .onErrorResume(
                              full -> full instanceof RejectedExecutionException && !started.get(),
                              full -> Mono.just(overLimit(g, full)));
                    }));
  }

  /** A call over {@link #MOST_WAITING} gated async calls at once: refused before its claim. */
  private static CallToolResult overLimit(GatedTool g, Throwable full) {
    g.limited.warn(
        "async calls over the limit",
        "tool {}: a call was refused before its claim, nothing ran: {} gated async calls are"
            + " waiting for their handlers already ({})",
        g.tool().name(),
        MOST_WAITING,
        full.toString());
    return ModelMessages.internalError(GateResult.Effect.NO);
  }

  /**
   * @return the handler's result; it fails with what the handler signalled ({@code block()} wraps a
   *     checked exception, which the policy's {@code outcomeUnknownWhen} must see as it is)
   */
  private static CallToolResult awaited(Mono<CallToolResult> handled) throws Exception {
    try {
      return handled.block();
    } catch (RuntimeException e) {
      Throwable signalled = Exceptions.unwrap(e);
      if (signalled != e && signalled instanceof Error error) {
        throw error;
      }
      if (signalled != e && signalled instanceof Exception checked) {
        throw checked;
      }
      throw e;
    }
  }

  /** The most gated async calls that wait for their handlers at once, nested calls included. */
  static final int MOST_WAITING = 1_000;

  /**
   * The scheduler a gated async call waits on for its handler's {@code Mono}: the adapter's own
   * threads, one per call waiting, started as calls come and ended after 60 s idle, at most {@value
   * #MOST_WAITING}. A call over that is refused before its claim, nothing ran: {@code
   * idempotency_internal_error}, executed {@code no}, safe to retry. No call ever queues behind
   * another: on Reactor's bounded-elastic, a burst of gated calls held every thread while their
   * handlers' own bounded-elastic work, or a nested gated call, queued behind them, and no call
   * ended.
   */
  static Scheduler waits() {
    ThreadPoolExecutor threads =
        new ThreadPoolExecutor(
            0,
            MOST_WAITING,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            DaemonThreads.named("mcpgate-async-tool"));
    return Schedulers.fromExecutorService(threads, "mcpgate-async-tool");
  }
}
