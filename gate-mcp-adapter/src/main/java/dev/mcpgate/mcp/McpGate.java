package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.KeyDigest;
import dev.mcpgate.core.audit.AuditSink;
import dev.mcpgate.core.audit.Redaction;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.TransactionScope;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Gates the tool handlers of an MCP Java SDK server: a retried call returns the first result
 * instead of acting again. One wrapping call per tool specification, or one call for every {@link
 * Idempotent}-annotated tool in a list.
 *
 * <pre>{@code
 * McpGate mcpGate = McpGate.builder(gate)
 *     .tenantResolver(TenantResolver.fromTransportContext("tenant"))
 *     .build();
 * McpServerFeatures.SyncToolSpecification refund =
 *     mcpGate.gate(refundSpec, ToolPolicy.defaults());
 * }</pre>
 *
 * <p>What a wrapped tool does: its input schema gains the key argument, its description a sentence
 * on reusing the key, its annotations {@code idempotentHint=true}. A call's tenant comes from the
 * {@link TenantResolver}, its key from the policy's {@linkplain KeySource sources}; the whole
 * argument set (less the key argument) is hashed. A first call runs the handler and stores its
 * result; a retry gets the stored result, marked in {@code _meta}; the same key with other
 * arguments, a call still running elsewhere, or a missing key get an {@code isError} result with a
 * sentence a model can act on and {@code structuredContent.error.type} (see {@link McpGateErrors}).
 * An exception from the handler releases the claim and propagates as the SDK would, unless it says
 * the outcome is unknown (an {@code OutcomeUnknownException}, what the policy's {@code
 * outcomeUnknownWhen} names, or an interrupt or cancellation): then the key is fenced and the
 * caller gets {@code idempotency_outcome_unknown}. A tool annotated read-only is passed through
 * ungated. The handler finds the claim it runs under with {@link GatedClaim#of}.
 *
 * <p>Async specifications: the claim, the handler and the completion run on the adapter's own
 * threads ({@code mcpgate-async-tool}, one per call waiting), never on the caller's event thread.
 * The gate waits for the handler's {@code Mono} there (it must store the result before answering),
 * with the caller's Reactor context, so one such thread is held for as long as the handler runs;
 * the handler's own bounded-elastic work never waits behind them. What the {@code Mono} fails with
 * reaches the policy as signalled. A call the transport cancels interrupts that thread; the key is
 * then fenced as unknown, not freed, since the handler may have acted.
 */
public final class McpGate {
  private final ToolGating tools;

  private McpGate(ToolGating tools) {
    this.tools = tools;
  }

  /**
   * @return how many audit records the sink failed to take (each is logged too)
   */
  public long auditFailures() {
    return tools.auditor().failures();
  }

  /** The policy of the gate this wraps, whose {@code outcomeUnknownWhen} its tools follow. */
  public GatePolicy policy() {
    return tools.gate().policy();
  }

  /**
   * @param gate the gate (store, default policy, listeners)
   * @return a builder; a tenant resolver is required
   */
  public static Builder builder(IdempotencyGate gate) {
    return new Builder(requireNonNull(gate, "gate must not be null"));
  }

  /**
   * @param spec a sync tool specification
   * @param policy how to gate it
   * @return the gated specification (the same one, if the tool is annotated read-only)
   */
  public McpServerFeatures.SyncToolSpecification gate(
      McpServerFeatures.SyncToolSpecification spec, ToolPolicy policy) {
    GatedTool g = tools.gated(requireNonNull(spec, "spec must not be null").tool(), policy);
    return g == null ? spec : GatedSpecifications.of(g, spec);
  }

  /**
   * Like {@link #gate(McpServerFeatures.SyncToolSpecification, ToolPolicy)}, for async
   * specifications.
   */
  public McpServerFeatures.AsyncToolSpecification gate(
      McpServerFeatures.AsyncToolSpecification spec, ToolPolicy policy) {
    GatedTool g = tools.gated(requireNonNull(spec, "spec must not be null").tool(), policy);
    return g == null ? spec : GatedSpecifications.of(g, spec, tools.waits());
  }

  /**
   * Like {@link #gate(McpServerFeatures.SyncToolSpecification, ToolPolicy)}, for stateless servers.
   */
  public McpStatelessServerFeatures.SyncToolSpecification gate(
      McpStatelessServerFeatures.SyncToolSpecification spec, ToolPolicy policy) {
    GatedTool g = tools.gated(requireNonNull(spec, "spec must not be null").tool(), policy);
    return g == null ? spec : GatedSpecifications.of(g, spec);
  }

  /** Like {@link #gate(McpServerFeatures.AsyncToolSpecification, ToolPolicy)}, stateless. */
  public McpStatelessServerFeatures.AsyncToolSpecification gate(
      McpStatelessServerFeatures.AsyncToolSpecification spec, ToolPolicy policy) {
    GatedTool g = tools.gated(requireNonNull(spec, "spec must not be null").tool(), policy);
    return g == null ? spec : GatedSpecifications.of(g, spec, tools.waits());
  }

  /**
   * A sync tool whose handler writes to the store's own database in the same transaction as its
   * stored result (exactly once for same-database effects): the handler gets the transaction's
   * resource (a JDBC connection) and must not commit or close it. If another attempt took the lease
   * over meanwhile, the whole transaction rolls back and the call fails.
   *
   * @param tool the tool definition
   * @param policy how to gate it
   * @param scope the unit of work, for example {@code jdbcStore.transactions()}
   * @param handler the handler, given the exchange, the request and the transaction's resource
   * @return the gated specification
   * @throws IllegalArgumentException if the tool is annotated read-only
   */
  public <R> McpServerFeatures.SyncToolSpecification gateTransactional(
      McpSchema.Tool tool,
      ToolPolicy policy,
      TransactionScope<R> scope,
      TransactionalHandler<R> handler) {
    requireNonNull(scope, "scope must not be null");
    requireNonNull(handler, "handler must not be null");
    return tools.writeTool(
        tool,
        policy,
        "transactional",
        exchange ->
            new Invocation.Transactional<>(
                tool.name(), scope, (r, resource) -> handler.handle(exchange, r, scope, resource)));
  }

  /**
   * Like {@link #gateTransactional}, in single-commit mode: the claim, the handler's writes and the
   * stored result are one transaction and one commit (see {@link
   * IdempotencyGate#executeSingleCommit}). A duplicate waits for that transaction, at most the
   * in-flight wait, then gets its result; a handler that throws, or a crash, rolls everything back
   * and frees the key at once.
   *
   * @param scope the unit of work that claims, for example {@code jdbcStore.singleCommit()}
   * @throws IllegalArgumentException if the tool is annotated read-only
   */
  public <R> McpServerFeatures.SyncToolSpecification gateSingleCommit(
      McpSchema.Tool tool,
      ToolPolicy policy,
      ClaimingScope<R> scope,
      TransactionalHandler<R> handler) {
    requireNonNull(scope, "scope must not be null");
    requireNonNull(handler, "handler must not be null");
    return tools.writeTool(
        tool,
        policy,
        "single-commit",
        exchange ->
            new Invocation.SingleCommit<>(
                tool.name(), scope, (r, resource) -> handler.handle(exchange, r, scope, resource)));
  }

  /**
   * The handler of a {@linkplain #gateTransactional transactional} or {@linkplain #gateSingleCommit
   * single-commit} tool.
   *
   * @param <R> the resource type (a {@code java.sql.Connection})
   */
  @FunctionalInterface
  public interface TransactionalHandler<R> {
    /**
     * @param exchange the server exchange
     * @param request the request (its claim: {@link GatedClaim#of})
     * @param scope the unit of work (not to be committed by the handler)
     * @param resource the transaction's resource to write through
     * @return the result, stored in the same transaction
     */
    CallToolResult handle(
        McpSyncServerExchange exchange,
        CallToolRequest request,
        TransactionScope<R> scope,
        R resource)
        throws Exception;
  }

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
    return AnnotatedTools.gate(
        specs, beans, McpServerFeatures.SyncToolSpecification::tool, this::gate);
  }

  /**
   * The policies of the {@link Idempotent} handler methods of classes, for a framework that gates
   * specifications it finds itself (the Spring Boot starter): found through superclasses and
   * interfaces, so a proxy's class gives its target's.
   *
   * @param types classes with {@code @Idempotent} methods
   * @return each annotated tool's policy, by tool name
   * @throws IllegalArgumentException naming a class without {@code @Idempotent} methods, or two
   *     methods that name one tool
   */
  public static Map<String, ToolPolicy> annotatedPolicies(Class<?>... types) {
    return AnnotatedTools.policiesOf(types);
  }

  /**
   * @param type a class
   * @return true when it, a superclass or an interface has an {@link Idempotent} method
   */
  public static boolean hasIdempotentMethods(Class<?> type) {
    return AnnotatedTools.hasAnnotatedMethods(requireNonNull(type, "type must not be null"));
  }

  /** Like {@link #gateAnnotated(List, Object...)}, for async specifications. */
  public List<McpServerFeatures.AsyncToolSpecification> gateAnnotatedAsync(
      List<McpServerFeatures.AsyncToolSpecification> specs, Object... beans) {
    return AnnotatedTools.gate(
        specs, beans, McpServerFeatures.AsyncToolSpecification::tool, this::gate);
  }

  /** Builds an {@link McpGate}. */
  public static final class Builder {
    private final IdempotencyGate gate;
    private TenantResolver tenants;
    private CallAuthorizer authorizer;
    private McpJsonMapper json;
    private boolean requireExactNumbers;
    private boolean acceptInexactNumbers;
    private AuditSink audit;
    private Redaction redaction = Redaction.argumentNames();
    private Function<CallToolResult, String> resultSummary;
    private KeyDigest keyDigest = KeyDigest.sha256();
    private boolean digestAllKeys;

    private Builder(IdempotencyGate gate) {
      this.gate = gate;
    }

    /**
     * @param digest how keys that are personal data are stored, logged and sent to the store: a
     *     natural key (argument values in clear, such as an email address) is replaced by its
     *     digest within its (tenant, tool) before the gate sees it. A plain SHA-256 by default;
     *     give {@link KeyDigest#hmacSha256(byte[])} with a secret, the same on every server of the
     *     store, so that a reader of the store or the logs cannot test guesses. Replays and
     *     conflicts work as before; look a call up by its raw key with {@link
     *     KeyDigest#digested(dev.mcpgate.core.ClaimId)}.
     */
    public Builder keyDigest(KeyDigest digest) {
      this.keyDigest = requireNonNull(digest, "digest must not be null");
      return this;
    }

    /**
     * @param all true to digest every key, also keys that clients send (argument, {@code _meta},
     *     header), not only natural keys; false by default
     */
    public Builder digestAllKeys(boolean all) {
      this.digestAllKeys = all;
      return this;
    }

    /**
     * @param sink given one record per decision of a gated tool (executed, replayed, conflict,
     *     in-flight refusal, key or tenant refused, released, outcome unknown), after the decision;
     *     none by default
     */
    public Builder audit(AuditSink sink) {
      this.audit = requireNonNull(sink, "sink must not be null");
      return this;
    }

    /**
     * @param redaction what of the arguments the audit records keep; their names by default
     */
    public Builder auditRedaction(Redaction redaction) {
      this.redaction = requireNonNull(redaction, "redaction must not be null");
      return this;
    }

    /**
     * @param summary what the audit records keep of a result (an id, a status); nothing by default
     */
    public Builder auditResultSummary(Function<CallToolResult, String> summary) {
      this.resultSummary = requireNonNull(summary, "summary must not be null");
      return this;
    }

    /**
     * @param resolver tells each call's tenant from the server side (required)
     */
    public Builder tenantResolver(TenantResolver resolver) {
      this.tenants = requireNonNull(resolver, "resolver must not be null");
      return this;
    }

    /**
     * @param authorizer checked on every arrival of a gated call, replays included, before anything
     *     is claimed (none by default)
     */
    public Builder authorizer(CallAuthorizer authorizer) {
      this.authorizer = requireNonNull(authorizer, "authorizer must not be null");
      return this;
    }

    /**
     * @param mapper the JSON mapper of the server (for stored results, and checked for exact
     *     numbers): one that reads decimals as {@code double} replays a decimal in a result
     *     rounded. Without it, the SDK's default one is checked, and results are stored through it
     *     set up to read decimals exactly
     */
    public Builder jsonMapper(McpJsonMapper mapper) {
      this.json = requireNonNull(mapper, "mapper must not be null");
      return this;
    }

    /**
     * Refuse to build unless the JSON mapper reads numbers exactly (see {@link ExactNumbers});
     * without it, the build warns.
     */
    public Builder requireExactNumbers() {
      this.requireExactNumbers = true;
      return this;
    }

    /**
     * Accept numbers that arrive as {@code double} and hash them as they are. By default a gated
     * call is refused ({@code arguments_invalid}) when a number among its arguments arrives as a
     * {@code Double} or {@code Float}: the transport's mapper read it inexactly, and {@code
     * 1250.0000000000000001} would replay the result of {@code 1250}. Only for a server that cannot
     * read numbers exactly and whose tools take no decimal where nearby values matter; the build
     * logs the risk.
     */
    public Builder acceptInexactNumbers() {
      this.acceptInexactNumbers = true;
      return this;
    }

    /**
     * @return the adapter
     * @throws IllegalStateException if no tenant resolver was given, or the mapper reads numbers
     *     inexactly and {@link #requireExactNumbers()} was asked for, or both it and {@link
     *     #acceptInexactNumbers()} were, or no JSON module of the SDK is on the class path
     */
    public McpGate build() {
      if (tenants == null) {
        throw new IllegalStateException(
            "a tenant resolver is required: TenantResolver.fixed(\"...\") for a single-user stdio"
                + " server, or TenantResolver.fromTransportContext(\"tenant\") with an HTTP context"
                + " extractor that sets it from the authenticated request");
      }
      if (requireExactNumbers && acceptInexactNumbers) {
        throw new IllegalStateException(
            "requireExactNumbers() and acceptInexactNumbers()"
                + " contradict each other: choose one");
      }
      McpJsonMapper server =
          ExactNumbers.checked(
              json != null ? json : ExactNumbers.sdkDefault(),
              requireExactNumbers,
              acceptInexactNumbers);
      // without the server's own mapper, results are stored through the SDK's default set up to
      // read decimals exactly: a replay must not round a decimal its first answer held
      McpJsonMapper results = json != null ? server : ExactNumbers.forResults(server);
      return new McpGate(
          new ToolGating(
              gate,
              tenants,
              authorizer,
              new CallToolResultMapper(results),
              audit == null ? Auditor.NONE : new Auditor(audit, redaction, resultSummary),
              new KeyProtection(keyDigest, digestAllKeys),
              acceptInexactNumbers,
              GatedSpecifications.waits()));
    }
  }
}
