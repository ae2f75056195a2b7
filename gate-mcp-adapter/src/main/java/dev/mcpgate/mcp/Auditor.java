package dev.mcpgate.mcp;

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

  Auditor(AuditSink sink, Redaction redaction, Function<CallToolResult, String> summary) {
    this.sink = sink;
    this.redaction = redaction;
    this.summary = summary;
  }

  /** What one call was decided, filled in as the gated tool finds it out. */
  static final class Trail {
    final long startNanos = System.nanoTime();
    String tenant;
    String key;
    ToolCall call;
    AuditDecision decision;
    String reason;
    int attempt;
    CallToolResult result;
    boolean ungated;

    void decided(AuditDecision decision, String reason) {
      if (this.decision == null) {
        this.decision = decision;
        this.reason = reason;
      }
    }
  }

  boolean enabled() {
    return sink != null;
  }

  void record(String tool, Map<String, Object> arguments, Set<String> ignored, Trail trail) {
    if (sink == null || trail.ungated || trail.decision == null) {
      return;
    }
    try {
      String hash = null;
      if (trail.call != null) {
        hash = ArgumentHasher.hash(trail.call.arguments(), ignored);
      }
      String result = summary != null && trail.result != null ? summary.apply(trail.result) : null;
      sink.record(
          new AuditRecord(
              Instant.now(),
              trail.tenant,
              tool,
              trail.key,
              hash,
              redaction.redact(tool, arguments),
              trail.decision,
              trail.reason,
              trail.attempt,
              result,
              (System.nanoTime() - trail.startNanos) / 1_000));
    } catch (RuntimeException e) {
      long n = failures.incrementAndGet();
      LOG.warn(
          "the audit record of a {} call to {} could not be written ({} so far); the"
              + " decision stands",
          trail.decision,
          tool,
          n,
          e);
    }
  }

  /**
   * @return how many records the sink (or the redaction or summary hook) failed to take
   */
  long failures() {
    return failures.get();
  }
}
