package dev.mcpgate.mcp;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.hash.CanonicalJson;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Gates the tool handlers of an MCP Java SDK server: a retried call returns the first result
 * instead of acting again. One wrapping call per tool specification, or one call for every
 * {@link Idempotent}-annotated tool in a list.
 *
 * <pre>{@code
 * McpGate mcpGate = McpGate.builder(gate)
 *     .tenantResolver(TenantResolver.fromTransportContext("tenant"))
 *     .build();
 * McpServerFeatures.SyncToolSpecification refund =
 *     mcpGate.gate(refundSpec, ToolPolicy.defaults());
 * }</pre>
 *
 * <p>What a wrapped tool does: its input schema gains the key argument, its description a
 * sentence on reusing the key, its annotations {@code idempotentHint=true}. A call's tenant comes
 * from the {@link TenantResolver}, its key from the policy's {@linkplain KeySource sources}; the
 * whole argument set (less the key argument) is hashed. A first call runs the handler and stores
 * its result; a retry gets the stored result, marked in {@code _meta}; the same key with other
 * arguments, a call still running elsewhere, or a missing key get an {@code isError} result with
 * a sentence a model can act on and {@code structuredContent.error.type} (see
 * {@link McpGateErrors}). An exception from the handler releases the claim and propagates as the
 * SDK would. A tool annotated read-only is passed through ungated.
 *
 * <p>Async specifications stay non-blocking: the store calls run on Reactor's bounded-elastic
 * scheduler, never on the caller's event thread.
 */
public final class McpGate {
  private static final Logger LOG = LoggerFactory.getLogger(McpGate.class);

  private final IdempotencyGate gate;
  private final TenantResolver tenants;
  private final CallAuthorizer authorizer;
  private final McpJsonMapper json;

  private McpGate(IdempotencyGate gate, TenantResolver tenants, CallAuthorizer authorizer,
      McpJsonMapper json) {
    this.gate = gate;
    this.tenants = tenants;
    this.authorizer = authorizer;
    this.json = json;
  }

  /**
   * @param gate the gate (store, default policy, listeners)
   * @return a builder; a tenant resolver is required
   */
  public static Builder builder(IdempotencyGate gate) {
    return new Builder(notNull(gate, "gate"));
  }

  // ------------------------------------------------------------------ the four specification kinds

  /**
   * @param spec a sync tool specification
   * @param policy how to gate it
   * @return the gated specification (the same one, if the tool is annotated read-only)
   */
  public McpServerFeatures.SyncToolSpecification gate(
      McpServerFeatures.SyncToolSpecification spec, ToolPolicy policy) {
    notNull(spec, "spec");
    Gated g = prepare(spec.tool(), policy);
    if (g == null) {
      return spec;
    }
    var handler = spec.callHandler();
    return new McpServerFeatures.SyncToolSpecification(g.tool,
        (exchange, request) -> g.call(exchange.transportContext(), request,
            r -> handler.apply(exchange, r)));
  }

  /** Like {@link #gate(McpServerFeatures.SyncToolSpecification, ToolPolicy)}, for async specifications. */
  public McpServerFeatures.AsyncToolSpecification gate(
      McpServerFeatures.AsyncToolSpecification spec, ToolPolicy policy) {
    notNull(spec, "spec");
    Gated g = prepare(spec.tool(), policy);
    if (g == null) {
      return spec;
    }
    var handler = spec.callHandler();
    return new McpServerFeatures.AsyncToolSpecification(g.tool,
        (exchange, request) -> Mono.fromCallable(() -> g.call(exchange.transportContext(), request,
                r -> handler.apply(exchange, r).block()))
            .subscribeOn(Schedulers.boundedElastic()));
  }

  /** Like {@link #gate(McpServerFeatures.SyncToolSpecification, ToolPolicy)}, for stateless servers. */
  public McpStatelessServerFeatures.SyncToolSpecification gate(
      McpStatelessServerFeatures.SyncToolSpecification spec, ToolPolicy policy) {
    notNull(spec, "spec");
    Gated g = prepare(spec.tool(), policy);
    if (g == null) {
      return spec;
    }
    var handler = spec.callHandler();
    return new McpStatelessServerFeatures.SyncToolSpecification(g.tool,
        (context, request) -> g.call(context, request, r -> handler.apply(context, r)));
  }

  /** Like {@link #gate(McpServerFeatures.AsyncToolSpecification, ToolPolicy)}, for stateless servers. */
  public McpStatelessServerFeatures.AsyncToolSpecification gate(
      McpStatelessServerFeatures.AsyncToolSpecification spec, ToolPolicy policy) {
    notNull(spec, "spec");
    Gated g = prepare(spec.tool(), policy);
    if (g == null) {
      return spec;
    }
    var handler = spec.callHandler();
    return new McpStatelessServerFeatures.AsyncToolSpecification(g.tool,
        (context, request) -> Mono.fromCallable(() -> g.call(context, request,
                r -> handler.apply(context, r).block()))
            .subscribeOn(Schedulers.boundedElastic()));
  }

  /**
   * A sync tool whose handler writes to the store's own database in the same transaction as its
   * stored result (exactly once for same-database effects): the handler gets the transaction's
   * resource (a JDBC connection) and must not commit or close it. If another attempt took the
   * lease over meanwhile, the whole transaction rolls back and the call fails.
   *
   * @param tool the tool definition
   * @param policy how to gate it
   * @param scope the unit of work, for example {@code jdbcStore.transactions()}
   * @param handler the handler, given the exchange, the request and the transaction's resource
   * @return the gated specification
   */
  public <R> McpServerFeatures.SyncToolSpecification gateTransactional(McpSchema.Tool tool,
      ToolPolicy policy, dev.mcpgate.core.spi.TransactionScope<R> scope,
      TransactionalHandler<R> handler) {
    notNull(scope, "scope");
    notNull(handler, "handler");
    Gated g = prepare(tool, policy);
    if (g == null) {
      throw new IllegalArgumentException("tool " + tool.name() + " is annotated read-only;"
          + " a transactional write tool must not be");
    }
    return new McpServerFeatures.SyncToolSpecification(g.tool, (exchange, request) ->
        g.call(exchange.transportContext(), request, null,
            (r, resource) -> handler.handle(exchange, r, scope, resource), scope));
  }

  /**
   * The handler of a {@linkplain #gateTransactional transactional} tool.
   *
   * @param <R> the resource type (a {@code java.sql.Connection})
   */
  @FunctionalInterface
  public interface TransactionalHandler<R> {
    /**
     * @param exchange the server exchange
     * @param request the request (with the claim in its {@code _meta}: {@link GatedClaim})
     * @param scope the unit of work (not to be committed by the handler)
     * @param resource the transaction's resource to write through
     * @return the result, stored in the same transaction
     */
    CallToolResult handle(io.modelcontextprotocol.server.McpSyncServerExchange exchange,
        CallToolRequest request, dev.mcpgate.core.spi.TransactionScope<R> scope, R resource)
        throws Exception;
  }

  // ------------------------------------------------------------------ annotations

  /**
   * Gates every specification whose tool has an {@link Idempotent} handler method on one of the
   * beans (matched by tool name); the others are returned unchanged, in the same order.
   *
   * @param specs the server's tool specifications (for example from Spring AI's tool provider)
   * @param beans the objects whose methods define the tools
   * @return the specifications, gated where annotated
   * @throws IllegalArgumentException naming an annotated method whose tool is not in specs
   */
  public List<McpServerFeatures.SyncToolSpecification> gateAnnotated(
      List<McpServerFeatures.SyncToolSpecification> specs, Object... beans) {
    return gateAnnotated(specs, beans, McpServerFeatures.SyncToolSpecification::tool, this::gate);
  }

  /** Like {@link #gateAnnotated(List, Object...)}, for async specifications. */
  public List<McpServerFeatures.AsyncToolSpecification> gateAnnotatedAsync(
      List<McpServerFeatures.AsyncToolSpecification> specs, Object... beans) {
    return gateAnnotated(specs, beans, McpServerFeatures.AsyncToolSpecification::tool, this::gate);
  }

  private <S> List<S> gateAnnotated(List<S> specs, Object[] beans,
      Function<S, McpSchema.Tool> tool, java.util.function.BiFunction<S, ToolPolicy, S> wrap) {
    notNull(specs, "specs");
    Map<String, ToolPolicy> policies = annotatedPolicies(beans);
    List<S> out = new ArrayList<>(specs.size());
    Map<String, ToolPolicy> unmatched = new LinkedHashMap<>(policies);
    for (S spec : specs) {
      String name = tool.apply(spec).name();
      ToolPolicy policy = policies.get(name);
      unmatched.remove(name);
      out.add(policy == null ? spec : wrap.apply(spec, policy));
    }
    if (!unmatched.isEmpty()) {
      throw new IllegalArgumentException("@Idempotent methods name tools that are not in the"
          + " specifications: " + unmatched.keySet() + "; the specifications have "
          + specs.stream().map(s -> tool.apply(s).name()).toList());
    }
    return out;
  }

  static Map<String, ToolPolicy> annotatedPolicies(Object... beans) {
    Map<String, ToolPolicy> policies = new LinkedHashMap<>();
    for (Object bean : notNull(beans, "beans")) {
      for (Method method : notNull(bean, "bean").getClass().getMethods()) {
        Idempotent idempotent = method.getAnnotation(Idempotent.class);
        if (idempotent == null) {
          continue;
        }
        String name = !idempotent.tool().isEmpty() ? idempotent.tool() : mcpToolName(method);
        if (policies.put(name, ToolPolicy.of(idempotent)) != null) {
          throw new IllegalArgumentException("two @Idempotent methods name the tool \"" + name + "\"");
        }
      }
    }
    return policies;
  }

  /** The name of a Spring AI (or community) {@code @McpTool} on the method, else its name. */
  private static String mcpToolName(Method method) {
    for (Annotation a : method.getAnnotations()) {
      if (a.annotationType().getSimpleName().equals("McpTool")) {
        try {
          Object name = a.annotationType().getMethod("name").invoke(a);
          if (name instanceof String s && !s.isBlank()) {
            return s;
          }
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read the name of " + a, e);
        }
      }
    }
    return method.getName();
  }

  // ------------------------------------------------------------------ the tool definition

  /**
   * @param tool a tool definition
   * @param policy how it is gated
   * @return the definition a gated tool shows in {@code tools/list}: the key argument in its
   *     input schema (when the policy takes the key from an argument), one sentence in its
   *     description, {@code idempotentHint=true}, and a {@code _meta} entry
   *     {@value McpGateErrors#META_TOOL} that says how it is gated
   */
  public static McpSchema.Tool gatedTool(McpSchema.Tool tool, ToolPolicy policy) {
    notNull(tool, "tool");
    notNull(policy, "policy");
    Map<String, Object> schema = tool.inputSchema() == null
        ? new LinkedHashMap<>(Map.of("type", "object")) : new LinkedHashMap<>(tool.inputSchema());
    StringBuilder sentence = new StringBuilder();
    if (policy.keySources().contains(KeySource.ARGUMENT)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> properties = schema.get("properties") instanceof Map<?, ?> p
          ? new LinkedHashMap<>((Map<String, Object>) p) : new LinkedHashMap<>();
      Map<String, Object> keyProperty = new LinkedHashMap<>();
      keyProperty.put("type", "string");
      keyProperty.put("minLength", 1);
      keyProperty.put("maxLength", ClaimId.MAX_LENGTH);
      keyProperty.put("description", "Idempotency key: a new unique value (for example a UUID)"
          + " for each new request; the same value again when retrying that request.");
      properties.put(policy.keyArgument(), keyProperty);
      schema.put("properties", properties);
      if (policy.keyArgumentRequiredInSchema()) {
        List<Object> required = schema.get("required") instanceof List<?> r
            ? new ArrayList<>(r) : new ArrayList<>();
        if (!required.contains(policy.keyArgument())) {
          required.add(policy.keyArgument());
        }
        schema.put("required", required);
      }
      sentence.append("If this call fails or times out, retry it with the same ")
          .append(policy.keyArgument())
          .append(" and the same arguments: it then returns the first result instead of acting"
              + " twice. Use a new ")
          .append(policy.keyArgument()).append(" only for a new request.");
    } else if (policy.keySources().contains(KeySource.NATURAL)) {
      sentence.append("Calls with the same ").append(String.join(", ", policy.naturalKey()))
          .append(" are done once: a retry returns the first result instead of acting twice.");
    } else {
      sentence.append("Retried calls with the same idempotency key are done once.");
    }
    String description = tool.description() == null || tool.description().isBlank()
        ? sentence.toString() : tool.description().strip() + "\n\n" + sentence;
    McpSchema.ToolAnnotations a = tool.annotations();
    McpSchema.ToolAnnotations annotations = a == null
        ? new McpSchema.ToolAnnotations(null, null, null, true, null, null)
        : new McpSchema.ToolAnnotations(a.title(), a.readOnlyHint(), a.destructiveHint(), true,
            a.openWorldHint(), a.returnDirect());
    Map<String, Object> gating = new LinkedHashMap<>();
    gating.put("key_sources", policy.keySources().stream()
        .map(k -> k.name().toLowerCase(java.util.Locale.ROOT)).toList());
    if (policy.keySources().contains(KeySource.ARGUMENT)) {
      gating.put("key_argument", policy.keyArgument());
    }
    if (!policy.naturalKey().isEmpty()) {
      gating.put("natural_key", policy.naturalKey());
    }
    Map<String, Object> meta = tool.meta() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(tool.meta());
    meta.put(McpGateErrors.META_TOOL, gating);
    return new McpSchema.Tool(tool.name(), tool.title(), description, schema, tool.outputSchema(),
        annotations, meta, tool.icons());
  }

  // ------------------------------------------------------------------ one gated tool

  private Gated prepare(McpSchema.Tool tool, ToolPolicy policy) {
    notNull(tool, "tool");
    notNull(policy, "policy");
    if (tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().readOnlyHint())) {
      LOG.warn("tool {} is annotated read-only (readOnlyHint=true): passed through ungated",
          tool.name());
      return null;
    }
    return new Gated(gatedTool(tool, policy), policy, gate.withPolicy(policy.applyTo(gate.policy())));
  }

  /** One gated tool: its definition, policy and gate, and the call flow. */
  private final class Gated {
    final McpSchema.Tool tool;
    final ToolPolicy policy;
    final IdempotencyGate toolGate;
    final ResultMapper<CallToolResult> mapper;

    Gated(McpSchema.Tool tool, ToolPolicy policy, IdempotencyGate toolGate) {
      this.tool = tool;
      this.policy = policy;
      this.toolGate = toolGate;
      this.mapper = new CallToolResultMapper(json);
    }

    CallToolResult call(McpTransportContext context, CallToolRequest request,
        Function<CallToolRequest, CallToolResult> handlerOf) {
      return call(context, request, handlerOf, null, null);
    }

    /**
     * The call flow. Either handlerOf runs the handler directly, or (with a scope) scoped runs
     * it inside the scope's transaction.
     */
    <R> CallToolResult call(McpTransportContext context, CallToolRequest request,
        Function<CallToolRequest, CallToolResult> handlerOf,
        ScopedHandler<R> scoped, dev.mcpgate.core.spi.TransactionScope<R> scope) {
      // handlerOf maps the request the handler should see to its result
      String tenant;
      try {
        tenant = tenants.resolve(context == null ? McpTransportContext.EMPTY : context);
      } catch (RuntimeException e) {
        LOG.error("tenant resolver failed for tool {}", tool.name(), e);
        tenant = null;
      }
      if (tenant == null || tenant.isBlank()) {
        return Refusals.error(McpGateErrors.STORE_UNAVAILABLE, "The server could not tell which"
            + " account this call belongs to, so it did not run it. This is a server"
            + " configuration problem; retrying will not help until it is fixed.", null);
      }
      if (authorizer != null) {
        String refusal = authorizer.refusal(tenant,
            context == null ? McpTransportContext.EMPTY : context, request);
        if (refusal != null) {
          return Refusals.error(McpGateErrors.FORBIDDEN, refusal, null);
        }
      }
      Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
      String key;
      try {
        key = findKey(request, arguments);
      } catch (InvalidIdempotencyKeyException e) {
        return invalidKey(e);
      }
      if (key == null) {
        if (!policy.required()) {
          if (scoped != null) {
            return runUngated(request, scoped, scope);
          }
          return handlerOf.apply(request);
        }
        return Refusals.error(McpGateErrors.KEY_REQUIRED, requiredMessage(), null);
      }
      ToolCall call;
      try {
        call = ToolCall.of(tenant, tool.name(), key, arguments);
      } catch (InvalidIdempotencyKeyException e) {
        return invalidKey(e);   // the key's rules are checked here, once, by ClaimId
      }
      GateResult<CallToolResult> result;
      try {
        if (scoped != null) {
          result = toolGate.execute(call, mapper, scope,
              (resource, ctx) -> scoped.run(handlerRequest(request, arguments, ctx), resource));
        } else {
          result = toolGate.execute(call, mapper,
              ctx -> handlerOf.apply(handlerRequest(request, arguments, ctx)));
        }
      } catch (StoreUnavailableException e) {
        LOG.warn("store unavailable for tool {}: {}", tool.name(), e.getMessage());
        return Refusals.error(McpGateErrors.STORE_UNAVAILABLE, "The call was not run because the"
            + " idempotency store could not be reached. It is safe to retry the same call with"
            + " the same key later.", null);
      } catch (InvalidArgumentsException e) {
        return Refusals.error(McpGateErrors.KEY_INVALID, "The arguments cannot be compared for"
            + " retries: " + e.getMessage() + ". Nothing was run.", null);
      } catch (ResultTooLargeException e) {
        return Refusals.error(McpGateErrors.OUTCOME_UNKNOWN, "The call ran, but its result was"
            + " too large to keep for retries (" + e.size() + " bytes). It will not run again with"
            + " this key; check its effect before sending a new request.", null);
      }
      if (result instanceof GateResult.Executed<CallToolResult> executed) {
        return executed.value();
      }
      if (result instanceof GateResult.Replayed<CallToolResult> replayed) {
        return Refusals.markReplay(replayed.value(), replayed.firstExecutedAt());
      }
      GateResult.Refused<CallToolResult> refused = (GateResult.Refused<CallToolResult>) result;
      return Refusals.of(refused);
    }

    /** A call without a key where keys are optional: the handler runs in its own transaction. */
    private <R> CallToolResult runUngated(CallToolRequest request, ScopedHandler<R> scoped,
        dev.mcpgate.core.spi.TransactionScope<R> scope) {
      R resource = scope.begin();
      try {
        CallToolResult result = scoped.run(request, resource);
        scope.commit(resource);
        return result;
      } catch (RuntimeException e) {
        scope.rollback(resource);
        throw e;
      } catch (Exception e) {
        scope.rollback(resource);
        throw new dev.mcpgate.core.ActionFailedException("tool " + tool.name() + " failed", e);
      } finally {
        scope.close(resource);
      }
    }

    private CallToolResult invalidKey(InvalidIdempotencyKeyException e) {
      return Refusals.error(McpGateErrors.KEY_INVALID, "The idempotency key is not valid: "
          + e.getMessage() + ". Send a key of 1 to 255 characters without control characters.",
          null);
    }

    private String requiredMessage() {
      if (policy.keySources().contains(KeySource.ARGUMENT)) {
        return "This tool changes state, so it needs an idempotency key and was not run. Call it"
            + " again with the argument " + policy.keyArgument() + " set to a new unique value"
            + " (for example a UUID), and reuse that value if you have to retry.";
      }
      if (policy.keySources().contains(KeySource.NATURAL)) {
        return "This tool needs the arguments " + String.join(", ", policy.naturalKey())
            + " to tell a retry from a new request, and was not run. Call it again with them.";
      }
      return "This tool needs an idempotency key in _meta " + McpGateErrors.META_KEY
          + " and was not run.";
    }

    private String findKey(CallToolRequest request, Map<String, Object> arguments) {
      for (KeySource source : policy.keySources()) {
        switch (source) {
          case ARGUMENT -> {
            Object value = arguments.get(policy.keyArgument());
            if (value != null) {
              if (!(value instanceof String s)) {
                throw new InvalidIdempotencyKeyException("argument " + policy.keyArgument()
                    + " must be a string, was " + value.getClass().getSimpleName(), false);
              }
              return s;
            }
          }
          case META -> {
            Object value = request.meta() == null ? null : request.meta().get(McpGateErrors.META_KEY);
            if (value != null) {
              if (!(value instanceof String s)) {
                throw new InvalidIdempotencyKeyException("_meta " + McpGateErrors.META_KEY
                    + " must be a string", false);
              }
              return s;
            }
          }
          case NATURAL -> {
            List<Object> values = new ArrayList<>();
            for (String name : policy.naturalKey()) {
              Object value = arguments.get(name);
              if (value == null) {
                values = null;
                break;
              }
              values.add(value);
            }
            if (values != null) {
              return naturalKey(values);
            }
          }
        }
      }
      return null;
    }

    private CallToolRequest handlerRequest(CallToolRequest request, Map<String, Object> arguments,
        dev.mcpgate.core.ClaimContext ctx) {
      Map<String, Object> args = arguments;
      if (!policy.keepKeyArgument() && arguments.containsKey(policy.keyArgument())) {
        args = new LinkedHashMap<>(arguments);
        args.remove(policy.keyArgument());
      }
      Map<String, Object> meta = request.meta() == null
          ? new LinkedHashMap<>() : new LinkedHashMap<>(request.meta());
      meta.put(GatedClaim.META_ENTRY, ctx);
      return new CallToolRequest(request.name(), args, meta);
    }
  }

  /** Runs a handler with a transaction's resource. */
  @FunctionalInterface
  private interface ScopedHandler<R> {
    CallToolResult run(CallToolRequest request, R resource) throws Exception;
  }

  /**
   * The natural key: the canonical JSON array of the values, or, past 255 characters, a SHA-256
   * of it ({@code sha256:} and 64 hex digits).
   */
  static String naturalKey(List<Object> values) {
    String canonical = CanonicalJson.toCanonicalString(values);
    if (canonical.codePointCount(0, canonical.length()) <= ClaimId.MAX_LENGTH
        && canonical.chars().noneMatch(Character::isISOControl)) {
      return canonical;
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(canonical.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Stores {@link CallToolResult}s as JSON through the SDK's own mapper (Jackson 2 or 3). */
  static final class CallToolResultMapper implements ResultMapper<CallToolResult> {
    private final McpJsonMapper json;

    CallToolResultMapper(McpJsonMapper json) {
      this.json = json;
    }

    @Override
    public byte[] toBytes(CallToolResult value) {
      try {
        return json.writeValueAsBytes(value);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the tool result as JSON", e);
      }
    }

    @Override
    public CallToolResult fromBytes(byte[] bytes) {
      try {
        return json.readValue(bytes, CallToolResult.class);
      } catch (IOException e) {
        throw new IdempotencyException("cannot read a stored tool result", e);
      }
    }

    @Override
    public boolean isFailure(CallToolResult value) {
      return value != null && Boolean.TRUE.equals(value.isError());
    }
  }

  /** Builds an {@link McpGate}. */
  public static final class Builder {
    private final IdempotencyGate gate;
    private TenantResolver tenants;
    private CallAuthorizer authorizer;
    private McpJsonMapper json;

    private Builder(IdempotencyGate gate) {
      this.gate = gate;
    }

    /** @param resolver tells each call's tenant from the server side (required) */
    public Builder tenantResolver(TenantResolver resolver) {
      this.tenants = notNull(resolver, "resolver");
      return this;
    }

    /**
     * @param authorizer checked on every arrival of a gated call, replays included, before
     *     anything is claimed (none by default)
     */
    public Builder authorizer(CallAuthorizer authorizer) {
      this.authorizer = notNull(authorizer, "authorizer");
      return this;
    }

    /** @param mapper the JSON mapper for stored results; the SDK's default one otherwise */
    public Builder jsonMapper(McpJsonMapper mapper) {
      this.json = notNull(mapper, "mapper");
      return this;
    }

    /**
     * @return the adapter
     * @throws IllegalStateException if no tenant resolver was given
     */
    public McpGate build() {
      if (tenants == null) {
        throw new IllegalStateException("a tenant resolver is required: TenantResolver.fixed(\"...\")"
            + " for a single-user stdio server, or TenantResolver.fromTransportContext(\"tenant\")"
            + " with an HTTP context extractor that sets it from the authenticated request");
      }
      return new McpGate(gate, tenants, authorizer,
          json != null ? json : McpJsonDefaults.getMapper());
    }
  }
}
