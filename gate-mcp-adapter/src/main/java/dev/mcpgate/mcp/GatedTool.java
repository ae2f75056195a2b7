package dev.mcpgate.mcp;

import dev.mcpgate.core.ActionFailedException;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.GateResult.Effect;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.KeyDigest;
import dev.mcpgate.core.RejectionReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.audit.AuditDecision;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * One gated tool and the path of each of its calls: the tenant from the server side, the
 * authorizer, the key from the policy's sources, then the gate; the gate's answer becomes the
 * handler's result, a replay marked in {@code _meta}, or a refusal a model can act on.
 */
final class GatedTool {
  private static final Logger LOG = LoggerFactory.getLogger(McpGate.class);

  private final McpSchema.Tool tool;
  private final ToolPolicy policy;
  private final IdempotencyGate gate;
  private final TenantResolver tenants;
  private final CallAuthorizer authorizer;
  private final ResultMapper<CallToolResult> mapper;
  private final Auditor auditor;
  private final KeyProtection keys;
  private final boolean acceptInexactNumbers;

  /** The per-call lines (a bad tenant, a hook that throws): at most one a minute per cause. */
  RateLimitedLog limited = RateLimitedLog.perMinute(LOG); // replaced by tests only

  /** With natural keys digested by a plain SHA-256, the default. */
  GatedTool(
      McpSchema.Tool tool,
      ToolPolicy policy,
      IdempotencyGate gate,
      TenantResolver tenants,
      CallAuthorizer authorizer,
      ResultMapper<CallToolResult> mapper,
      Auditor auditor) {
    this(
        tool,
        policy,
        gate,
        tenants,
        authorizer,
        mapper,
        auditor,
        new KeyProtection(KeyDigest.sha256(), false));
  }

  GatedTool(
      McpSchema.Tool tool,
      ToolPolicy policy,
      IdempotencyGate gate,
      TenantResolver tenants,
      CallAuthorizer authorizer,
      ResultMapper<CallToolResult> mapper,
      Auditor auditor,
      KeyProtection keys) {
    this(tool, policy, gate, tenants, authorizer, mapper, auditor, keys, false);
  }

  /**
   * @param acceptInexactNumbers true to hash numbers that arrive as {@code double} as they are;
   *     false to refuse them (see {@link ExactNumbers#inexactNumberPath})
   */
  GatedTool(
      McpSchema.Tool tool,
      ToolPolicy policy,
      IdempotencyGate gate,
      TenantResolver tenants,
      CallAuthorizer authorizer,
      ResultMapper<CallToolResult> mapper,
      Auditor auditor,
      KeyProtection keys,
      boolean acceptInexactNumbers) {
    this.acceptInexactNumbers = acceptInexactNumbers;
    this.keys = keys;
    this.auditor = auditor;
    this.tool = ToolDefinitions.gated(tool, policy);
    this.policy = policy;
    this.gate = gate;
    this.tenants = tenants;
    this.authorizer = authorizer;
    this.mapper = mapper;
  }

  /**
   * @return the definition the gated tool shows in {@code tools/list}
   */
  McpSchema.Tool tool() {
    return tool;
  }

  CallToolResult call(McpTransportContext context, CallToolRequest request, Invocation invocation) {
    return call(context, ResolvedTenant.of(tenants, context), request, invocation);
  }

  /**
   * @return the call's tenant, resolved where the call arrives ({@link ResolvedTenant#reactive})
   */
  Mono<ResolvedTenant> resolveTenantReactive(McpTransportContext context) {
    return ResolvedTenant.reactive(tenants, context);
  }

  /** A call whose tenant was resolved where it arrived. */
  CallToolResult call(
      McpTransportContext context,
      ResolvedTenant tenant,
      CallToolRequest request,
      Invocation invocation) {
    long startNanos = System.nanoTime();
    Decided decided = decide(context, tenant, request, invocation);
    if (decided == Decided.UNGATED) {
      return invocation.ungated(request); // nothing gated, nothing audited
    }
    if (auditor.enabled()) {
      auditor.record(
          tool.name(),
          request.arguments() == null ? Map.of() : request.arguments(),
          gate.policy().ignoredArguments(),
          decided.audit(),
          decided.result(),
          startNanos);
    }
    return decided.answer();
  }

  /** Never throws: a failure is in the decision, with what was known when it came. */
  private Decided decide(
      McpTransportContext context,
      ResolvedTenant resolved,
      CallToolRequest request,
      Invocation invocation) {
    Auditor.Known known = Auditor.Known.NOTHING;
    if (resolved.failure() != null) { // the server's hook failed: not the caller's to fix
      return Decided.failedBeforeAnyHandler(resolved.failure(), known, limited, tool.name());
    }
    String tenant = resolved.name();
    try {
      McpTransportContext transport = context == null ? McpTransportContext.EMPTY : context;
      if (tenant == null || tenant.isEmpty()) {
        rejected(RejectionReason.TENANT_UNKNOWN, null);
        return Decided.answered(
            RejectionMessages.tenantUnknown(), known, AuditDecision.TENANT_REFUSED, "no tenant");
      }
      try {
        ClaimId.validate(tenant, "tenant");
      } catch (InvalidIdempotencyKeyException e) {
        limited.error(
            "invalid tenant",
            "tenant resolver gave an invalid tenant for tool {}: {}",
            tool.name(),
            e.getMessage());
        rejected(RejectionReason.TENANT_INVALID, null);
        return Decided.answered(
            RejectionMessages.tenantInvalid(e),
            known,
            AuditDecision.TENANT_REFUSED,
            e.getMessage());
      }
      known = known.withTenant(tenant);
      if (authorizer != null) {
        String refusal = authorizer.refusal(tenant, transport, request);
        if (refusal != null) {
          rejected(RejectionReason.FORBIDDEN, null);
          return Decided.answered(
              RejectionMessages.forbidden(refusal), known, AuditDecision.TENANT_REFUSED, refusal);
        }
      }
      Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
      ToolCall call;
      KeyExtractor.Found found = null;
      try {
        found = KeyExtractor.find(policy, request, arguments, transport);
        if (found == null) {
          if (policy.required()) {
            rejected(RejectionReason.KEY_REQUIRED, null);
            return Decided.answered(
                RejectionMessages.keyRequired(policy), known, AuditDecision.KEY_REFUSED, "no key");
          }
          return Decided.UNGATED;
        }
        // a natural key (argument values in clear) is stored, logged and sent as its digest
        String key =
            keys.protect(
                tenant, tool.name(), keys.validated(found.key(), found.source()), found.source());
        known = known.withKey(key);
        call =
            ToolCall.of(tenant, tool.name(), key, arguments) // checks the key, once
                .withKeySource(found.source().wireName());
        known = known.withCall(call);
      } catch (InvalidIdempotencyKeyException e) {
        rejected(RejectionReason.KEY_INVALID, found == null ? null : found.source().wireName());
        return Decided.answered(
            RejectionMessages.keyInvalid(e), known, AuditDecision.KEY_REFUSED, e.getMessage());
      } catch (InvalidArgumentsException e) { // the values of a natural key, as the hash would
        rejected(RejectionReason.ARGUMENTS_INVALID, KeySource.NATURAL.wireName());
        return Decided.answered(
            RejectionMessages.argumentsInvalid(e),
            known,
            AuditDecision.KEY_REFUSED,
            e.getMessage());
      }
      if (!acceptInexactNumbers) {
        // the transport's mapper read the arguments; a double among them may be a rounded
        // decimal (1250.0000000000000001 arrives as 1250.0), which no hash can tell apart
        String inexact =
            ExactNumbers.inexactNumberPath(arguments, gate.policy().ignoredArguments());
        if (inexact != null) {
          warnInexact(inexact);
          rejected(RejectionReason.ARGUMENTS_INVALID, call.keySource());
          return Decided.answered(
              RejectionMessages.argumentsInexact(inexact),
              known,
              AuditDecision.KEY_REFUSED,
              "the number at " + inexact + " was read as a double");
        }
      }
      return gated(request, invocation, arguments, call, known);
    } catch (RuntimeException | Error e) {
      return Decided.failedBeforeAnyHandler(e, known, limited, tool.name());
    }
  }

  /**
   * The call through the gate, and the one switch over what the gate decided: what the caller gets
   * (the handler's result, a marked replay, a refusal or failure a model can act on, or the
   * handler's own exception as it threw it) and what the audit records.
   */
  private Decided gated(
      CallToolRequest request,
      Invocation invocation,
      Map<String, Object> arguments,
      ToolCall call,
      Auditor.Known known) {
    GateResult<CallToolResult> result;
    try {
      result = invocation.gated(gate, call, mapper, ctx -> handlerRequest(request, arguments));
    } catch (RuntimeException | Error e) {
      return Decided.thrownByTheGate(
          e, known, limited, tool.name()); // an Error of its mapper or codec
    }
    try {
      return answer(result, known);
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError vm) {
        throw vm;
      }
      // the gate decided, then its answer could not be made (a replayed result that is null):
      // what the gate decided stands, and the caller is told what is known of its effect
      Effect effect =
          result.fold(
              executed ->
                  executed.completion() == GateResult.Completion.STORED
                      ? Effect.YES
                      : Effect.UNKNOWN,
              replayed -> Effect.YES,
              refused -> Effect.NO,
              GateResult.Failed::effect);
      limited.error(
          "answer failed " + e.getClass().getName(),
          "tool {}: the gate decided, but its answer could not be made",
          tool.name(),
          e);
      return Decided.answered(
          ModelMessages.internalError(effect),
          Auditor.Decision.of(known, result, "the answer could not be made: " + e));
    }
  }

  /** What the caller gets of what the gate decided, and what the audit records. */
  private Decided answer(GateResult<CallToolResult> result, Auditor.Known known) {
    return result.fold(
        executed ->
            Decided.answered(
                executed.value(),
                Auditor.Decision.of(
                    known,
                    result,
                    executed.completion() == GateResult.Completion.STORE_FAILED
                        ? "ran, but its result could not be stored"
                        : null)),
        replayed ->
            Decided.answered(
                ModelMessages.markReplay(replayed.value(), replayed),
                Auditor.Decision.of(
                    known,
                    result,
                    replayed.settled()
                        ? "a result stored under an operator's settlement, whose takeover is"
                            + " this attempt: the effect ran in an earlier one"
                        : null)),
        refused ->
            Decided.answered(
                ModelMessages.of(refused, reconciles()),
                Auditor.Decision.of(known, result, refused.message())),
        failed -> failed(failed, known));
  }

  /**
   * A failure the gate decided: answered as the model's typed error, except the handler's own
   * failure (and an {@link Error} of the handler's, not ours to swallow), which the caller gets as
   * the handler threw it.
   */
  private Decided failed(GateResult.Failed<CallToolResult> failed, Auditor.Known known) {
    Throwable cause = failed.cause();
    CallToolResult answer = ModelMessages.of(failed);
    boolean handlersOwn =
        answer == null // the action's own failure
            || failed.reason() == FailureReason.OUTCOME_UNKNOWN
                && failed.effect() == Effect.UNKNOWN; // the action's, fenced
    if (answer == null
        || cause instanceof Error && (handlersOwn || cause instanceof VirtualMachineError)) {
      String reason =
          failed.reason() == FailureReason.ACTION_FAILED
              ? "the handler threw " + cause.getClass().getName()
              : cause.toString();
      return new Decided(
          null,
          cause instanceof RuntimeException || cause instanceof Error
              ? cause
              : new ActionFailedException("tool " + tool.name() + " failed", cause),
          Auditor.Decision.of(known, failed, reason));
    }
    limited.warn( // a caller can make a failure on every call: the gate's events tell each one
        "failed " + failed.reason(),
        "tool {}: {} ({}; executed {}, retry with the same key {})",
        tool.name(),
        failed.message(),
        failed.reason(),
        failed.effect(),
        failed.retrySafe() ? "safe" : "not safe",
        cause);
    return Decided.answered(answer, Auditor.Decision.of(known, failed, failed.message()));
  }

  /**
   * Tells the gate's listeners (metrics, spans) of a call refused here, before the gate: by tool,
   * reason and key source, never its tenant, key or arguments.
   */
  private void rejected(RejectionReason rejection, String keySource) {
    gate.rejected(tool.name(), rejection, keySource);
  }

  /** Tells the operator, at most once a minute per tool, what the model is told it cannot fix. */
  private void warnInexact(String path) {
    limited.warn(
        "inexact number",
        "tool {}: refused a call (arguments_invalid) whose number at {} arrived as a double: the"
            + " server's transport reads decimals inexactly, so nearby numbers would hash alike. On"
            + " the MCP Java SDK, build the transport and the server with ExactNumbers.jsonMapper()"
            + " (with the Spring Boot starter: mcpgate.exact-numbers=true); on Quarkus, take the"
            + " argument as a long or a String; or accept the risk"
            + " (McpGate.Builder.acceptInexactNumbers(), mcpgate.accept-inexact-numbers=true)",
        tool.name(),
        path);
  }

  /**
   * @return whether a retry of a key whose outcome is unknown asks a reconciler first
   */
  private boolean reconciles() {
    return gate.policy().reconciler() != null;
  }

  /**
   * The request the handler sees: a new one for each attempt, whose meta can carry its claim
   * ({@link GatedClaim}), without the key argument (when it is a key source) unless the policy
   * keeps it.
   */
  private CallToolRequest handlerRequest(CallToolRequest request, Map<String, Object> arguments) {
    Map<String, Object> args = arguments;
    if (policy.takesKeyArgument()
        && !policy.keepKeyArgument()
        && arguments.containsKey(policy.keyArgument())) {
      args = new LinkedHashMap<>(arguments);
      args.remove(policy.keyArgument());
    }
    return GatedClaim.carrying(request, args);
  }
}
