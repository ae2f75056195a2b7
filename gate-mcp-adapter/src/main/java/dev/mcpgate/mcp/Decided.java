package dev.mcpgate.mcp;

import dev.mcpgate.core.GateResult.Effect;
import dev.mcpgate.core.audit.AuditDecision;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

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
record Decided(CallToolResult result, Throwable thrown, Auditor.Decision audit) {
  static final Decided UNGATED = new Decided(null, null, null);

  static Decided answered(CallToolResult result, Auditor.Decision audit) {
    return new Decided(result, null, audit);
  }

  static Decided answered(
      CallToolResult result, Auditor.Known known, AuditDecision decision, String reason) {
    return answered(result, Auditor.Decision.of(known, decision, reason));
  }

  /**
   * A failure before any handler ran (a hook of the adapter's threw): the caller gets our fixed
   * answer that nothing took effect (an {@link Error} is thrown on as it is), the audit records it,
   * the operator's log has the details.
   */
  static Decided failedBeforeAnyHandler(
      Throwable thrown, Auditor.Known known, RateLimitedLog log, String tool) {
    return failed(thrown, known, "failed before any handler ran: ", Effect.NO, log, tool);
  }

  /**
   * A failure the gate threw instead of deciding (an {@link Error} of its mapper or codec): our
   * fixed answer that the effect is not known, as for {@link #failedBeforeAnyHandler}.
   */
  static Decided thrownByTheGate(
      Throwable thrown, Auditor.Known known, RateLimitedLog log, String tool) {
    return failed(thrown, known, "the gate threw ", Effect.UNKNOWN, log, tool);
  }

  private static Decided failed(
      Throwable thrown,
      Auditor.Known known,
      String reason,
      Effect effect,
      RateLimitedLog log,
      String tool) {
    Auditor.Decision audit =
        Auditor.Decision.of(known, AuditDecision.FAILED, reason + thrown.getClass().getName());
    log.error(
        reason + thrown.getClass().getName(),
        "tool {}: {}{}",
        tool,
        reason,
        thrown.toString(),
        thrown);
    if (thrown instanceof VirtualMachineError) {
      return new Decided(null, thrown, audit); // the JVM's own trouble: not ours to answer
    }
    return answered(ModelMessages.internalError(effect), audit);
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
