package dev.mcpgate.mcp;

import dev.mcpgate.core.ActionFailedException;
import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ScopedAction;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.TransactionScope;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.function.Function;

/**
 * How a gated tool's handler runs: straight, inside a unit of work that its stored result shares,
 * or in single-commit mode. Each way runs the handler gated (through the gate) or, for a call
 * without a key where keys are optional, ungated.
 */
sealed interface Invocation {

  /**
   * @param requestFor the request the handler sees, for the claim it runs under
   */
  GateResult<CallToolResult> gated(
      IdempotencyGate gate,
      ToolCall call,
      ResultMapper<CallToolResult> mapper,
      Function<ClaimContext, CallToolRequest> requestFor);

  CallToolResult ungated(CallToolRequest request);

  /** A tool's handler; it may throw what the tool signalled (an async handler's checked error). */
  @FunctionalInterface
  interface Handler {
    CallToolResult apply(CallToolRequest request) throws Exception;
  }

  /** The handler runs as it is; its result is stored after it returns. */
  record Direct(Handler handler) implements Invocation {
    @Override
    public GateResult<CallToolResult> gated(
        IdempotencyGate gate,
        ToolCall call,
        ResultMapper<CallToolResult> mapper,
        Function<ClaimContext, CallToolRequest> requestFor) {
      return gate.execute(call, mapper, ctx -> run(requestFor.apply(ctx), ctx));
    }

    private CallToolResult run(CallToolRequest request, ClaimContext ctx) throws Exception {
      try (GatedClaim.Scope bound = GatedClaim.bind(request, ctx)) {
        return handler.apply(request);
      }
    }

    @Override
    public CallToolResult ungated(CallToolRequest request) {
      try {
        return handler.apply(request);
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new ActionFailedException("the tool's handler failed", e);
      }
    }
  }

  /**
   * Single-commit mode: the claim, the handler's writes and the stored result are one transaction
   * (see {@link IdempotencyGate#executeSingleCommit}).
   */
  record SingleCommit<R>(String tool, ClaimingScope<R> scope, Transactional.Handler<R> handler)
      implements Invocation {
    @Override
    public GateResult<CallToolResult> gated(
        IdempotencyGate gate,
        ToolCall call,
        ResultMapper<CallToolResult> mapper,
        Function<ClaimContext, CallToolRequest> requestFor) {
      return gate.executeSingleCommit(call, mapper, scope, handler.bound(requestFor));
    }

    @Override
    public CallToolResult ungated(CallToolRequest request) {
      return new Transactional<>(tool, scope, handler).ungated(request);
    }
  }

  /** The handler writes through a transaction's resource, which its stored result shares. */
  record Transactional<R>(String tool, TransactionScope<R> scope, Handler<R> handler)
      implements Invocation {

    /** Runs a handler with a transaction's resource. */
    @FunctionalInterface
    interface Handler<R> {
      CallToolResult run(CallToolRequest request, R resource) throws Exception;

      /**
       * @return the gate's action: the handler, on its own request, with its claim bound
       */
      default ScopedAction<CallToolResult, R> bound(
          Function<ClaimContext, CallToolRequest> requestFor) {
        return (resource, ctx) -> {
          CallToolRequest request = requestFor.apply(ctx);
          try (GatedClaim.Scope bound = GatedClaim.bind(request, ctx)) {
            return run(request, resource);
          }
        };
      }
    }

    @Override
    public GateResult<CallToolResult> gated(
        IdempotencyGate gate,
        ToolCall call,
        ResultMapper<CallToolResult> mapper,
        Function<ClaimContext, CallToolRequest> requestFor) {
      return gate.execute(call, mapper, scope, handler.bound(requestFor));
    }

    /**
     * A call without a key where keys are optional: the handler runs in its own transaction, which
     * commits only when it returns. Anything it throws, an {@link Error} too, rolls the transaction
     * back here: it is never left open for whoever closes the resource to commit.
     */
    @Override
    public CallToolResult ungated(CallToolRequest request) {
      R resource = scope.begin();
      try {
        CallToolResult result = runOrRollBack(request, resource);
        try {
          scope.commit(resource);
        } catch (RuntimeException e) {
          rollback(resource, e);
          throw e;
        }
        return result;
      } finally {
        scope.close(resource);
      }
    }

    private CallToolResult runOrRollBack(CallToolRequest request, R resource) {
      try {
        return handler.run(request, resource);
      } catch (RuntimeException | Error e) {
        rollback(resource, e);
        throw e;
      } catch (Exception e) {
        rollback(resource, e);
        throw new ActionFailedException("tool " + tool + " failed", e);
      }
    }

    private void rollback(R resource, Throwable cause) {
      try {
        scope.rollback(resource);
      } catch (RuntimeException e) {
        cause.addSuppressed(e);
      }
    }
  }
}
