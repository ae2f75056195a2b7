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
import dev.mcpgate.core.spi.ClaimState;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Locale;
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
    Auditor.Trail trail = new Auditor.Trail();
    try {
      CallToolResult result = decide(context, tenant, request, invocation, trail);
      trail.result = result;
      return result;
    } catch (RuntimeException | Error e) {
      trail.decided(AuditDecision.RELEASED, "the handler threw " + e.getClass().getName());
      throw e;
    } finally {
      if (auditor.enabled()) {
        auditor.record(
            tool.name(),
            request.arguments() == null ? Map.of() : request.arguments(),
            gate.policy().ignoredArguments(),
            trail);
      }
    }
  }

  private CallToolResult decide(
      McpTransportContext context,
      String tenant,
      CallToolRequest request,
      Invocation invocation,
      Auditor.Trail trail) {
    McpTransportContext transport = context == null ? McpTransportContext.EMPTY : context;
    if (tenant == null || tenant.isEmpty()) {
      trail.decided(AuditDecision.TENANT_REFUSED, "no tenant");
      return ModelMessages.tenantUnknown();
    }
    try {
      ClaimId.validate(tenant, "tenant");
    } catch (InvalidIdempotencyKeyException e) {
      LOG.error(
          "tenant resolver gave an invalid tenant for tool {}: {}", tool.name(), e.getMessage());
      trail.decided(AuditDecision.TENANT_REFUSED, e.getMessage());
      return ModelMessages.tenantInvalid(e);
    }
    trail.tenant = tenant;
    if (authorizer != null) {
      String refusal = authorizer.refusal(tenant, transport, request);
      if (refusal != null) {
        trail.decided(AuditDecision.TENANT_REFUSED, refusal);
        return ModelMessages.forbidden(refusal);
      }
    }
    Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
    ToolCall call;
    try {
      KeyExtractor.Found found = KeyExtractor.find(policy, request, arguments, transport);
      if (found == null) {
        if (policy.required()) {
          trail.decided(AuditDecision.KEY_REFUSED, "no key");
          return ModelMessages.keyRequired(policy);
        }
        trail.ungated = true;
        return invocation.ungated(request);
      }
      // a natural key (argument values in clear) is stored, logged and sent as its digest
      String key =
          keys.protect(
              tenant,
              tool.name(),
              ClaimId.validate(found.key(), "idempotency key"),
              found.source());
      trail.key = key;
      call =
          ToolCall.of(tenant, tool.name(), key, arguments) // checks the key, once
              .withKeySource(found.source().name().toLowerCase(Locale.ROOT));
      trail.call = call;
    } catch (InvalidIdempotencyKeyException e) {
      trail.decided(AuditDecision.KEY_REFUSED, e.getMessage());
      return ModelMessages.keyInvalid(e);
    }
    if (!acceptInexactNumbers) {
      // the transport's mapper read the arguments; a double among them may be a rounded
      // decimal (1250.0000000000000001 arrives as 1250.0), which no hash can tell apart
      String inexact = ExactNumbers.inexactNumberPath(arguments);
      if (inexact != null) {
        warnInexact(inexact);
        trail.decided(
            AuditDecision.KEY_REFUSED, "the number at " + inexact + " was read as a double");
        return ModelMessages.argumentsInexact(inexact);
      }
    }
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
      trail.decided(AuditDecision.OUTCOME_UNKNOWN, e.getMessage());
      return ModelMessages.commitOutcomeUnknown();
    } catch (OutcomeUnknownException e) {
      if (!fencedBy(attempt.get())) {
        // single-commit: the whole transaction rolled back, claim included; the key is free
        trail.decided(AuditDecision.RELEASED, e.getMessage());
        throw e;
      }
      LOG.warn("outcome unknown for tool {}: {}", tool.name(), e.getMessage());
      trail.decided(AuditDecision.OUTCOME_UNKNOWN, e.getMessage());
      return ModelMessages.outcomeUnknown(reconciles());
    } catch (CommitRolledBackException e) {
      LOG.warn("commit rolled back for tool {}: {}", tool.name(), e.getMessage());
      trail.decided(AuditDecision.STORE_UNAVAILABLE, e.getMessage());
      return ModelMessages.rolledBack();
    } catch (StoreUnavailableException e) {
      LOG.warn("store unavailable for tool {}: {}", tool.name(), e.getMessage());
      trail.decided(AuditDecision.STORE_UNAVAILABLE, e.getMessage());
      return ModelMessages.storeUnavailable();
    } catch (LeaseLostException e) {
      LOG.warn("lease lost for tool {}: {}", tool.name(), e.getMessage());
      trail.decided(AuditDecision.LEASE_LOST, e.getMessage());
      return ModelMessages.leaseLost();
    } catch (InvalidArgumentsException e) {
      trail.decided(AuditDecision.KEY_REFUSED, e.getMessage());
      return ModelMessages.argumentsInvalid(e);
    } catch (ResultTooLargeException e) {
      trail.decided(AuditDecision.RESULT_NOT_STORED, e.getMessage());
      return ModelMessages.resultTooLarge(e);
    } catch (RuntimeException e) {
      if (!fencedBy(attempt.get())) {
        throw e; // released: a retry runs again
      }
      // the gate fenced the key: the handler's failure says its outcome is unknown
      LOG.warn(
          "outcome unknown for tool {}: the handler failed with {}", tool.name(), e.toString());
      trail.decided(AuditDecision.OUTCOME_UNKNOWN, e.toString());
      return ModelMessages.outcomeUnknown(reconciles());
    }
    if (result instanceof GateResult.Executed<CallToolResult> executed) {
      trail.attempt = executed.claim().attempt();
      trail.decided(
          switch (executed.completion()) {
            case STORED ->
                executed.claim().isTakeover() ? AuditDecision.TAKEOVER : AuditDecision.EXECUTED;
            case RELEASED -> AuditDecision.RELEASED;
            case LEASE_LOST -> AuditDecision.LEASE_LOST;
            case STORE_FAILED -> AuditDecision.STORE_UNAVAILABLE;
          },
          executed.completion() == GateResult.Completion.STORE_FAILED
              ? "ran, but its result could not be stored"
              : null);
      return executed.value();
    }
    if (result instanceof GateResult.Replayed<CallToolResult> replayed) {
      trail.attempt = replayed.attempt();
      trail.decided(AuditDecision.REPLAYED, null);
      return ModelMessages.markReplay(replayed.value(), replayed.firstExecutedAt());
    }
    GateResult.Refused<CallToolResult> refused = (GateResult.Refused<CallToolResult>) result;
    trail.decided(AuditDecision.valueOf(refused.reason().name()), refused.message());
    return ModelMessages.of(refused, reconciles());
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
   * Whether the gate fenced the key as unknown after this attempt's handler failed: read from the
   * store, not worked out again here. The row is fenced by this attempt when it is UNKNOWN and held
   * by this attempt's token; a row that is gone or another attempt's means the key was released (or
   * rolled back with its single-commit transaction). A store that cannot be read leaves it unknown,
   * and unknown is what is said.
   */
  private boolean fencedBy(ClaimContext attempt) {
    if (attempt == null) {
      return false; // nothing was claimed: the failure came before the handler ran
    }
    try {
      return gate.find(attempt.id())
          .filter(
              row ->
                  row.token().equals(attempt.claim().token()) && row.state() == ClaimState.UNKNOWN)
          .isPresent();
    } catch (RuntimeException unreadable) {
      LOG.warn("could not read the claim of {} after its handler failed", attempt.id(), unreadable);
      return true;
    }
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
