package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.CommitOutcomeUnknownException;
import dev.mcpgate.core.CommitRolledBackException;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.KeyDigest;
import dev.mcpgate.core.LeaseLostException;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.audit.AuditDecision;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
    return call(context, resolveTenant(context), request, invocation);
  }

  /**
   * @return the call's tenant on this thread, or null (resolver failures are logged)
   */
  String resolveTenant(McpTransportContext context) {
    try {
      return tenants.resolve(context == null ? McpTransportContext.EMPTY : context);
    } catch (RuntimeException e) {
      LOG.error("tenant resolver failed for tool {}", tool.name(), e);
      return null;
    }
  }

  /**
   * @return the call's tenant, resolved on the subscribing thread with the subscriber's Reactor
   *     context (async tools: where the call arrives, before any scheduler hop); empty when it
   *     cannot be told (resolver failures are logged)
   */
  Mono<String> resolveTenantReactive(McpTransportContext context) {
    return Mono.defer(
            () -> tenants.resolveReactive(context == null ? McpTransportContext.EMPTY : context))
        .onErrorResume(
            RuntimeException.class,
            e -> {
              LOG.error("tenant resolver failed for tool {}", tool.name(), e);
              return Mono.empty();
            });
  }

  /** A call whose tenant was resolved where it arrived ({@code tenant} null: none). */
  CallToolResult call(
      McpTransportContext context, String tenant, CallToolRequest request, Invocation invocation) {
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

  /**
   * What the adapter decided about one call: what the caller gets (a result, or a failure thrown to
   * it) and what the audit records; {@link #UNGATED} for a call without a key where keys are
   * optional, which runs ungated and unaudited.
   *
   * @param result what the caller gets; null when it gets {@code thrown}
   * @param thrown the failure the caller gets (a {@link RuntimeException} or an {@link Error}), or
   *     null
   * @param audit the decision the audit records
   */
  private record Decided(CallToolResult result, Throwable thrown, Auditor.Decision audit) {
    static final Decided UNGATED = new Decided(null, null, null);

    static Decided answered(CallToolResult result, Auditor.Decision audit) {
      return new Decided(result, null, audit);
    }

    static Decided answered(
        CallToolResult result, Auditor.Known known, AuditDecision decision, String reason) {
      return answered(result, Auditor.Decision.of(known, decision, reason));
    }

    /** A failure of the gate's, answered: with the attempt whose handler ran, if one did. */
    static Decided answered(
        CallToolResult result,
        Auditor.Known known,
        AuditDecision decision,
        String reason,
        ClaimContext ran) {
      return answered(result, Auditor.Decision.of(known, decision, reason, ran));
    }

    /**
     * The caller gets {@code thrown} (as it is) after the audit records it as released, with the
     * attempt whose handler ran and threw it ({@code ran}).
     */
    static Decided threw(Throwable thrown, Auditor.Known known, String reason, ClaimContext ran) {
      return new Decided(
          null, thrown, Auditor.Decision.of(known, AuditDecision.RELEASED, reason, ran));
    }

    /**
     * The caller gets {@code thrown} (as it is), a failure before any handler ran (a hook of the
     * adapter's, or the gate itself, threw), after the audit records it as that: nothing ran.
     */
    static Decided failedBeforeAnyHandler(Throwable thrown, Auditor.Known known) {
      return new Decided(
          null,
          thrown,
          Auditor.Decision.of(
              known,
              AuditDecision.FAILED,
              "failed before any handler ran: " + thrown.getClass().getName()));
    }

    CallToolResult answer() {
      if (thrown instanceof RuntimeException e) {
        throw e;
      }
      if (thrown instanceof Error e) {
        throw e;
      }
      return result;
    }
  }

  /** Never throws: a failure is in the decision, with what was known when it came. */
  private Decided decide(
      McpTransportContext context, String tenant, CallToolRequest request, Invocation invocation) {
    Auditor.Known known = Auditor.Known.NOTHING;
    try {
      McpTransportContext transport = context == null ? McpTransportContext.EMPTY : context;
      if (tenant == null || tenant.isEmpty()) {
        return Decided.answered(
            ModelMessages.tenantUnknown(), known, AuditDecision.TENANT_REFUSED, "no tenant");
      }
      try {
        ClaimId.validate(tenant, "tenant");
      } catch (InvalidIdempotencyKeyException e) {
        LOG.error(
            "tenant resolver gave an invalid tenant for tool {}: {}", tool.name(), e.getMessage());
        return Decided.answered(
            ModelMessages.tenantInvalid(e), known, AuditDecision.TENANT_REFUSED, e.getMessage());
      }
      known = known.withTenant(tenant);
      if (authorizer != null) {
        String refusal = authorizer.refusal(tenant, transport, request);
        if (refusal != null) {
          return Decided.answered(
              ModelMessages.forbidden(refusal), known, AuditDecision.TENANT_REFUSED, refusal);
        }
      }
      Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
      ToolCall call;
      try {
        KeyExtractor.Found found = KeyExtractor.find(policy, request, arguments, transport);
        if (found == null) {
          if (policy.required()) {
            return Decided.answered(
                ModelMessages.keyRequired(policy), known, AuditDecision.KEY_REFUSED, "no key");
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
        return Decided.answered(
            ModelMessages.keyInvalid(e), known, AuditDecision.KEY_REFUSED, e.getMessage());
      }
      if (!acceptInexactNumbers) {
        // the transport's mapper read the arguments; a double among them may be a rounded
        // decimal (1250.0000000000000001 arrives as 1250.0), which no hash can tell apart
        String inexact = ExactNumbers.inexactNumberPath(arguments);
        if (inexact != null) {
          warnInexact(inexact);
          return Decided.answered(
              ModelMessages.argumentsInexact(inexact),
              known,
              AuditDecision.KEY_REFUSED,
              "the number at " + inexact + " was read as a double");
        }
      }
      return gated(request, invocation, arguments, call, known);
    } catch (RuntimeException | Error e) {
      return Decided.failedBeforeAnyHandler(e, known);
    }
  }

  /** The call through the gate: its result, or its failure, as the caller and the audit see it. */
  private Decided gated(
      CallToolRequest request,
      Invocation invocation,
      Map<String, Object> arguments,
      ToolCall call,
      Auditor.Known known) {
    GateResult<CallToolResult> result;
    AtomicReference<ClaimContext> attempt = new AtomicReference<>();
    try {
      result =
          invocation.gated(
              gate,
              call,
              mapper,
              ctx -> {
                attempt.set(ctx);
                return handlerRequest(request, arguments);
              });
    } catch (CommitOutcomeUnknownException e) { // before its superclass
      LOG.warn("commit outcome unknown for tool {}: {}", tool.name(), e.getMessage());
      return Decided.answered(
          ModelMessages.commitOutcomeUnknown(),
          known,
          AuditDecision.OUTCOME_UNKNOWN,
          e.getMessage(),
          attempt.get());
    } catch (OutcomeUnknownException e) {
      if (!fencedBy(attempt.get())) {
        // single-commit: the whole transaction rolled back, claim included; the key is free
        return Decided.threw(e, known, e.getMessage(), attempt.get());
      }
      LOG.warn("outcome unknown for tool {}: {}", tool.name(), e.getMessage());
      return Decided.answered(
          ModelMessages.outcomeUnknown(reconciles()),
          known,
          AuditDecision.OUTCOME_UNKNOWN,
          e.getMessage(),
          attempt.get());
    } catch (CommitRolledBackException e) {
      LOG.warn("commit rolled back for tool {}: {}", tool.name(), e.getMessage());
      return Decided.answered(
          ModelMessages.rolledBack(),
          known,
          AuditDecision.STORE_UNAVAILABLE,
          e.getMessage(),
          attempt.get());
    } catch (StoreUnavailableException e) {
      LOG.warn("store unavailable for tool {}: {}", tool.name(), e.getMessage());
      return Decided.answered(
          ModelMessages.storeUnavailable(),
          known,
          AuditDecision.STORE_UNAVAILABLE,
          e.getMessage(),
          attempt.get());
    } catch (LeaseLostException e) {
      LOG.warn("lease lost for tool {}: {}", tool.name(), e.getMessage());
      return Decided.answered(
          ModelMessages.leaseLost(),
          known,
          AuditDecision.LEASE_LOST,
          e.getMessage(),
          attempt.get());
    } catch (InvalidArgumentsException e) {
      if (attempt.get() != null) {
        return failed(e, known, attempt.get()); // the handler's own (a nested gate's), not ours
      }
      return Decided.answered(
          ModelMessages.argumentsInvalid(e), known, AuditDecision.KEY_REFUSED, e.getMessage());
    } catch (ResultTooLargeException e) {
      return Decided.answered(
          ModelMessages.resultTooLarge(e),
          known,
          AuditDecision.RESULT_NOT_STORED,
          e.getMessage(),
          attempt.get());
    } catch (RuntimeException | Error e) {
      return failed(e, known, attempt.get());
    }
    Auditor.Decision audit = Auditor.Decision.of(known, result, auditReason(result));
    try {
      return Decided.answered(answer(result), audit);
    } catch (RuntimeException | Error e) {
      return new Decided(null, e, audit); // decided by the gate: the audit says what it decided
    }
  }

  /**
   * A failure that is not one of the gate's answers. Before any handler began ({@code ran} null),
   * the caller gets it as it is and the audit records {@code FAILED}: nothing ran. The handler's
   * own (an {@link Error} too): the caller gets it as it is and the audit records it as released;
   * unless the gate fenced the key as unknown after it, and then the model is told the outcome is
   * unknown (an {@code Error} is still thrown, not ours to swallow) and the audit records that.
   */
  private Decided failed(Throwable e, Auditor.Known known, ClaimContext ran) {
    if (ran == null) {
      return Decided.failedBeforeAnyHandler(e, known); // the handler did not run: nothing did
    }
    if (!fencedBy(ran)) {
      return Decided.threw(e, known, "the handler threw " + e.getClass().getName(), ran);
    }
    // the gate fenced the key: the handler's failure says its outcome is unknown
    LOG.warn("outcome unknown for tool {}: the handler failed with {}", tool.name(), e.toString());
    if (e instanceof Error) {
      return new Decided(
          null, e, Auditor.Decision.of(known, AuditDecision.OUTCOME_UNKNOWN, e.toString(), ran));
    }
    return Decided.answered(
        ModelMessages.outcomeUnknown(reconciles()),
        known,
        AuditDecision.OUTCOME_UNKNOWN,
        e.toString(),
        ran);
  }

  /**
   * @return the sentence the audit records with the gate's decision: the refusal's message, or why
   *     a result that ran was not stored; null when the decision says it all
   */
  private static String auditReason(GateResult<CallToolResult> result) {
    return result.fold(
        executed ->
            switch (executed.completion()) {
              case STORE_FAILED -> "ran, but its result could not be stored";
              case STORED, RELEASED, LEASE_LOST -> null;
            },
        replayed -> null,
        GateResult.Refused::message);
  }

  /** What the caller gets of the gate's result: the handler's, a marked replay, or a refusal. */
  private CallToolResult answer(GateResult<CallToolResult> result) {
    return result.fold(
        GateResult.Executed::value,
        replayed -> ModelMessages.markReplay(replayed.value(), replayed.firstExecutedAt()),
        refused -> ModelMessages.of(refused, reconciles()));
  }

  private final AtomicLong inexactWarnedAt = new AtomicLong(Long.MIN_VALUE);

  /** Tells the operator, at most once a minute per tool, what the model is told it cannot fix. */
  private void warnInexact(String path) {
    long now = System.nanoTime();
    long last = inexactWarnedAt.get();
    if ((last == Long.MIN_VALUE || now - last >= 60_000_000_000L)
        && inexactWarnedAt.compareAndSet(last, now)) {
      LOG.warn(
          "tool {}: refused a call (arguments_invalid) whose number at {} arrived as a"
              + " double: the server's transport reads decimals inexactly, so nearby numbers would"
              + " hash alike. Build the transport and the server with ExactNumbers.jsonMapper(), or"
              + " accept the risk with McpGate.Builder.acceptInexactNumbers()",
          tool.name(),
          path);
    }
  }

  /**
   * @return whether a retry of a key whose outcome is unknown asks a reconciler first
   */
  private boolean reconciles() {
    return gate.policy().reconciler() != null;
  }

  /**
   * Whether the gate fenced the key as unknown after this attempt's handler failed, as the gate
   * itself decided ({@link ClaimContext#isFencedAsUnknown()}: written, or kept until the store
   * takes it), not worked out again here; false when the key was released, rolled back with its
   * single-commit transaction, or taken over.
   */
  private static boolean fencedBy(ClaimContext attempt) {
    return attempt != null && attempt.isFencedAsUnknown(); // null: failed before the handler ran
  }

  /**
   * The request the handler sees: a new object for each attempt (so {@link GatedClaim} can find its
   * claim by identity), without the key argument unless the policy keeps it.
   */
  private CallToolRequest handlerRequest(CallToolRequest request, Map<String, Object> arguments) {
    Map<String, Object> args = arguments;
    if (!policy.keepKeyArgument() && arguments.containsKey(policy.keyArgument())) {
      args = new LinkedHashMap<>(arguments);
      args.remove(policy.keyArgument());
    }
    return new CallToolRequest(request.name(), args, request.meta());
  }
}
