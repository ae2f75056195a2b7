package dev.mcpgate.core.audit;

import dev.mcpgate.core.internal.Checks;
import java.time.Instant;

/**
 * One decision about one call, for the audit trail: the narrative beside the claims table, which is
 * only the lock. Written after the decision, never able to change it.
 *
 * @param at when the decision was made (the application's clock)
 * @param tenant the tenant; null when the call was refused for want of one
 * @param tool the tool
 * @param key the raw idempotency key as the client sent it; null when there was none
 * @param argsHash the versioned canonical hash of the arguments; null when not computed
 * @param arguments the arguments as the redaction hook leaves them (by default, their names)
 * @param decision what was decided
 * @param reason a sentence for operators; null when the decision says it all
 * @param attempt the attempt that ran, or whose result was replayed; 0 when none
 * @param resultSummary what the summary hook made of the result; null without one
 * @param durationMicros how long the call took in the gate, handler included
 */
public record AuditRecord(
    Instant at,
    String tenant,
    String tool,
    String key,
    String argsHash,
    String arguments,
    AuditDecision decision,
    String reason,
    int attempt,
    String resultSummary,
    long durationMicros) {

  /**
   * @throws NullPointerException if at, tool, arguments or decision is null
   */
  public AuditRecord {
    Checks.notNull(at, "at");
    Checks.notNull(tool, "tool");
    Checks.notNull(arguments, "arguments");
    Checks.notNull(decision, "decision");
  }
}
