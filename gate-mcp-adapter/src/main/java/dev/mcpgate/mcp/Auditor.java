package dev.mcpgate.mcp;

import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.AuditSink;
import dev.mcpgate.core.audit.Redaction;
import dev.mcpgate.core.hash.ArgumentHasher;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one audit record per decision of a gated tool, after the decision: a sink that throws is
 * logged and counted, never allowed to change what the caller gets.
 */
final class Auditor {
  private static final Logger LOG = LoggerFactory.getLogger(McpGate.class);
  static final Auditor NONE = new Auditor(null, null, null);

  private final AuditSink sink;
  private final Redaction redaction;
  private final Function<CallToolResult, String> summary;
  private final AtomicLong failures = new AtomicLong();
  private final RateLimitedLog limited = RateLimitedLog.perMinute(LOG);

  Auditor(AuditSink sink, Redaction redaction, Function<CallToolResult, String> summary) {
    this.sink = sink;
    this.redaction = redaction;
    this.summary = summary;
  }

  /**
   * What the adapter knew of a call when it was decided, each part once it was found out.
   *
   * @param tenant the call's tenant, once resolved and valid; null before
   * @param key the key as the gate sees it (a natural key as its digest), once found; null before
   * @param call the call for the gate, once made; null before
   */
  record Known(String tenant, String key, ToolCall call) {
    static final Known NOTHING = new Known(null, null, null);

    Known withTenant(String tenant) {
      return new Known(tenant, key, call);
    }

    Known withKey(String key) {
      return new Known(tenant, key, call);
    }

    Known withCall(ToolCall call) {
      return new Known(tenant, key, call);
    }
  }

  /**
   * One call's decision, as its audit record says it.
   *
   * @param known what the adapter knew of the call
   * @param decision what was decided
   * @param reason a sentence for operators, or null
   * @param attempt the attempt that ran or was replayed; 0 when none
   * @param argsHash the hash the gate compared the arguments by, or claimed the key with; null when
   *     the gate gave none (a refusal before it, a failure before any handler ran), and then the
   *     record hashes the call, if any, with the tool's policy, as the gate does
   */
  record Decision(
      Known known, AuditDecision decision, String reason, int attempt, String argsHash) {

    /** A decision that the gate did not make: no attempt, no hash of the gate's. */
    static Decision of(Known known, AuditDecision decision, String reason) {
      return new Decision(known, decision, reason, 0, null);
    }

    /**
     * What the gate decided, as its result says it: the decision of its case, the attempt that ran
     * (0 when none of this call did) and the hash it compared.
     */
    static Decision of(Known known, GateResult<?> result, String reason) {
      return new Decision(
          known, AuditDecision.of(result), reason, result.attempt(), result.argsHash());
    }
  }

  boolean enabled() {
    return sink != null;
  }

  /**
   * @param result what the caller got; null when it got a failure
   * @param startNanos {@link System#nanoTime()} when the call arrived
   */
  void record(
      String tool,
      Map<String, Object> arguments,
      Set<String> ignored,
      Decision decision,
      CallToolResult result,
      long startNanos) {
    if (sink == null) {
      return;
    }
    Known known = decision.known();
    try {
      String hash = decision.argsHash();
      if (hash == null && known.call() != null) {
        // the gate gave no hash (a refusal before it, a failure before the handler): hash as it
        // does, with the tool's policy
        hash = hashOrNull(known.call().arguments(), ignored);
      }
      String summarized =
          summary != null && result != null ? hook("summary", tool, summary, result) : null;
      String redacted = hook("redaction", tool, a -> redaction.redact(tool, a), arguments);
      sink.record(
          new AuditRecord(
              Instant.now(),
              known.tenant(),
              tool,
              known.key(),
              hash,
              redacted,
              decision.decision(),
              decision.reason(),
              decision.attempt(),
              summarized,
              (System.nanoTime() - startNanos) / 1_000));
    } catch (RuntimeException e) {
      long n = failures.incrementAndGet();
      limited.warn(
          "audit_sink",
          "the audit record of a {} call to {} could not be written ({} so far); the"
              + " decision stands",
          decision.decision(),
          tool,
          n,
          e);
    }
  }

  /**
   * @return what the application's hook made of {@code input}; when the hook throws, a note that it
   *     failed (logged at WARN), so that the record keeps the rest and never the raw input
   */
  private <I> String hook(String what, String tool, Function<I, String> hook, I input) {
    try {
      return hook.apply(input);
    } catch (RuntimeException e) {
      limited.warn(
          "audit_" + what,
          "the audit {} hook failed on a call to {}; the record notes it",
          what,
          tool,
          e);
      return "(" + what + " failed: " + e.getClass().getSimpleName() + ")";
    }
  }

  /**
   * @return the arguments' hash, or null when they have none (a NaN, a type with no canonical form:
   *     the very reason such a call was refused), so that its refusal is still recorded
   */
  private static String hashOrNull(Map<String, ?> arguments, Set<String> ignored) {
    try {
      return ArgumentHasher.hash(arguments, ignored);
    } catch (InvalidArgumentsException e) {
      return null;
    }
  }

  /**
   * @return how many records the sink (or the redaction or summary hook) failed to take
   */
  long failures() {
    return failures.get();
  }
}
