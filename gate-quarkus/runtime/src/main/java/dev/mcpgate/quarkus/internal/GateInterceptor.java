package dev.mcpgate.quarkus.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TransactionEnds;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.Meta;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.BlockingOperationControl;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Gates a {@code @Tool} method that carries {@code @Idempotent}: its arguments, {@code _meta} and
 * tenant become the adapter's request, and the adapter decides (the method runs, or its stored
 * result is replayed, or the call is refused); its answer becomes the method's {@link
 * ToolResponse}. Runs outside the application's own interceptors ({@code @Transactional} included),
 * so that a result is stored only after the method's transaction has committed.
 */
@Gated
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class GateInterceptor {
  /** The transport context entry that carries the {@link Call} to the adapter's handler. */
  static final String CALL = "dev.mcpgate.quarkus/call";

  @Inject GatedTools tools;
  @Inject GateBeans beans;
  @Inject CallTenant tenants;
  @Inject CurrentCall current;
  @Inject ToolSecurity security;
  @Inject InFlightCalls inFlight;
  @Inject ObjectMapper json;

  /** Whether the caller's transaction is open ({@link CallerTransaction}); none without JTA. */
  @Inject
  @Named(CallerTransaction.NAME)
  Instance<BooleanSupplier> callerTransaction;

  @AroundInvoke
  Object gate(InvocationContext ic) throws Exception {
    GatedTools.Tool tool = tools.find(ic.getMethod());
    if (tool == null) {
      return ic.proceed();
    }
    boolean request = Arc.container().requestContext().isActive();
    if (request && current.inside()) {
      // called from Java inside the gated tools/call of this request: part of that call's action
      // (the outer call is the intent), never a call of its own under the outer call's key
      return ic.proceed();
    }
    if (!BlockingOperationControl.isBlockingAllowed()) {
      // called from Java on an event loop (a reactive tool or route): the gate's store calls and
      // its in-flight wait would block it. A programming error, refused before anything runs
      throw new IllegalStateException(
          "the gated tool "
              + tool.name()
              + " was called on an event-loop thread ("
              + Thread.currentThread().getName()
              + "), where the gate would block it; nothing ran. Call it from a worker thread");
    }
    if (callerTransaction.isResolvable() && callerTransaction.get().getAsBoolean()) {
      // checked here, not by an interceptor outside the gate, so that none can begin one between
      throw new IllegalStateException(
          "the gated tool "
              + tool.name()
              + " was called inside a transaction its caller began, which ends after the gate"
              + " stores its result: a rollback of it would leave a stored result that is not"
              + " true. Nothing ran. Call it outside a transaction (its own @Transactional"
              + " begins one)");
    }
    security.check(ic.getMethod(), ic.getParameters()); // replays too, before the gate answers
    if (!inFlight.enter()) {
      return STOPPING;
    }
    boolean entered = request && current.enter(tool.name());
    try {
      return gated(tool, ic, entered);
    } finally {
      if (entered) {
        current.exit();
      }
      inFlight.exit();
    }
  }

  /** The answer to a gated call that arrives while the application stops: nothing ran. */
  private static final ToolResponse STOPPING = stopping();

  private static ToolResponse stopping() {
    String message =
        "The server is shutting down, so this call was not run and nothing took effect. It is safe"
            + " to retry the same call with the same key.";
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("type", McpGateErrors.STORE_UNAVAILABLE);
    error.put("message", message);
    error.put(McpGateErrors.EXECUTED, McpGateErrors.EXECUTED_NO);
    error.put(McpGateErrors.RETRY_WITH_SAME_KEY, true);
    return new ToolResponse(true, List.of(new TextContent(message)), Map.of("error", error), null);
  }

  /**
   * @param served true when this invocation serves the request's {@code tools/call} of this tool:
   *     only then is the request's header this call's (called from Java inside another tool's call,
   *     or outside any, it is not)
   */
  private Object gated(GatedTools.Tool tool, InvocationContext ic, boolean served)
      throws Exception {
    SyncToolSpecification spec = beans.spec(tool);
    Object[] params = ic.getParameters();
    Call call = new Call(ic);
    Map<String, Object> context = new HashMap<>();
    context.put(CALL, call);
    String tenant = tenants.current();
    if (tenant != null) {
      context.put(CallTenant.CONTEXT_KEY, tenant);
    }
    if (served && listsHeader(ic.getMethod())) {
      KeySource.copyHeader(HeaderKey.current(), context);
    }
    CallToolRequest request =
        new CallToolRequest(tool.name(), arguments(tool, params), meta(tool, params));
    CallToolResult result;
    try {
      result = spec.callHandler().apply(McpTransportContext.create(context), request);
    } catch (Call.Thrown e) {
      throw e.checked;
    }
    return call.response(result);
  }

  private static boolean listsHeader(Method method) {
    Idempotent gated = method.getAnnotation(Idempotent.class);
    return gated != null && Arrays.asList(gated.keySources()).contains(KeySource.HEADER);
  }

  /** The tool arguments among the method's parameters, by name, as JSON values. */
  private Map<String, Object> arguments(GatedTools.Tool tool, Object[] params) {
    Map<String, Object> args = new LinkedHashMap<>();
    String[] names = tool.arguments();
    for (int i = 0; i < names.length && i < params.length; i++) {
      Object value = params[i] instanceof Optional<?> o ? o.orElse(null) : params[i];
      if (names[i] != null && value != null) {
        args.put(names[i], tree(value));
      }
    }
    return args;
  }

  private Object tree(Object value) {
    if (value instanceof String
        || value instanceof Boolean
        || value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte
        || value instanceof BigInteger
        || value instanceof BigDecimal
        || value instanceof Double
        || value instanceof Float) {
      return value; // a Double or Float is refused as inexact by the adapter, unless accepted
    }
    if (value instanceof Enum<?> constant) {
      return constant.name(); // what the caller sent: toString() may give two constants one text
    }
    if (value instanceof Character) {
      return value.toString();
    }
    return json.convertValue(value, Object.class);
  }

  private Map<String, Object> meta(GatedTools.Tool tool, Object[] params) {
    Meta meta =
        tool.metaParameter() >= 0
            ? (Meta) params[tool.metaParameter()]
            : Arc.container().requestContext().isActive() ? current.meta(tool.name()) : null;
    return meta == null ? null : meta.asJsonObject().getMap();
  }

  /** One call of the method: runs it at most once, and keeps what it returned. */
  static final class Call {
    private final InvocationContext ic;
    private ToolResponse returned;
    private CallToolResult stored;

    /**
     * How its {@code @Transactional} transactions ended ({@link TransactionEnd}; a retry
     * interceptor's outside {@code @Transactional} gives each attempt one), and what that makes of
     * what the method returned or threw.
     */
    final TransactionEnds ends = new TransactionEnds();

    /**
     * True once the method's chain returned or threw here: a part of it that begins later (an
     * interceptor between went on on another thread) must not run ({@link AttemptWatch}).
     */
    volatile boolean answered;

    Call(InvocationContext ic) {
      this.ic = ic;
    }

    /**
     * Runs the method, for the adapter: its result, as the adapter stores it.
     *
     * @throws OutcomeUnknownException when the method returned but what it returned cannot be
     *     stored (null, content or structured content that cannot be converted): the gate then
     *     keeps the key fenced instead of freeing it, and its retries are told the outcome is
     *     unknown
     */
    CallToolResult proceed(ObjectMapper json) {
      Object value;
      ic.getContextData().put(CALL, this); // for TransactionEnd, inside @Transactional
      try {
        value = ic.proceed();
      } catch (Exception e) {
        answered = true; // before its transactions are read: nothing of it may begin after
        if (timedOutByFaultTolerance(e)) {
          // @Timeout (inside the gate) interrupted the method, and cleared the interrupt when it
          // returned: its effect may have happened, so the key stays fenced, not freed
          throw new OutcomeUnknownException(
              "a Fault Tolerance @Timeout interrupted the tool: whether its effect happened is"
                  + " unknown",
              e);
        }
        throw failed(e);
      } finally {
        answered = true;
      }
      // marked rollback-only inside (a failure it caught), rolled back without an exception: its
      // answer (unless an error of its own) does not say what happened, and neither can the gate
      OutcomeUnknownException fence = ends.returned(value instanceof ToolResponse r && r.isError());
      if (fence != null) {
        throw fence;
      }
      returned = (ToolResponse) value;
      try {
        stored = ToolResponses.toResult(returned, v -> json.convertValue(v, Object.class));
      } catch (RuntimeException e) {
        // the method ran (its effect happened): freeing the key would let a retry run it again
        throw new OutcomeUnknownException(
            "the tool ran, but its result cannot be stored for retries ("
                + e.getMessage()
                + "): a call under an idempotency key keeps it fenced as outcome unknown",
            e);
      }
      return stored;
    }

    /**
     * @return what the method threw, to the adapter; an unknown outcome when a transaction of it
     *     (any attempt's) committed nonetheless (a checked exception, one {@code dontRollbackOn}
     *     names) or ended in a state not known: what it wrote is kept, and freeing the key would
     *     write it again
     */
    private RuntimeException failed(Exception e) {
      OutcomeUnknownException fence = ends.threw(e);
      if (fence != null) {
        return fence;
      }
      return e instanceof RuntimeException r ? r : new Thrown(e);
    }

    /**
     * MicroProfile Fault Tolerance's TimeoutException (or a subclass), known by name (the extension
     * is optional), thrown or the cause of what was thrown.
     */
    private static boolean timedOutByFaultTolerance(Exception e) {
      for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
          if (c.getName()
              .equals("org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException")) {
            return true;
          }
        }
      }
      return false;
    }

    /**
     * @return what the method returned, when the adapter answers with it; else the adapter's answer
     *     (a replay, a refusal) as a {@link ToolResponse}
     */
    ToolResponse response(CallToolResult answer) {
      return answer == stored && returned != null ? returned : ToolResponses.toResponse(answer);
    }

    /** A checked exception of the method, carried through the adapter and thrown as it was. */
    static final class Thrown extends RuntimeException {
      private static final long serialVersionUID = 1L;
      final transient Exception checked;

      Thrown(Exception checked) {
        super(checked.getMessage(), checked, false, false);
        this.checked = checked;
      }
    }
  }
}
