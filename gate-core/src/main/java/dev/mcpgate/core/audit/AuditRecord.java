package dev.mcpgate.core.audit;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.internal.Checks;
import java.time.Instant;

/**
 * One decision about one call, for the audit trail: the narrative beside the claims table, which is
 * only the lock. Written after the decision, never able to change it.
 *
 * <p>A record has a budget, so that no call can make a sink hold more: the texts a call can make
 * long are cut when the record is made, and the cut is said at the end of what is kept ({@code
 * …[cut: kept 3961 of 4288890 characters]}): the arguments to {@value #MAX_ARGUMENTS_CHARS}
 * characters, the reason and the result summary to {@value #MAX_TEXT_CHARS} each, tenant, tool and
 * key to {@value #MAX_NAME_CHARS} (a valid one is never cut), the hash to {@value #MAX_HASH_CHARS}.
 * The lengths are those of the audit table's columns; in all, at most {@value #MAX_CHARS}
 * characters, {@code 2 * MAX_CHARS} bytes of text in memory.
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

  /** The most characters {@link #arguments()} keeps. */
  public static final int MAX_ARGUMENTS_CHARS = 4000;

  /** The most characters {@link #reason()} and {@link #resultSummary()} keep, each. */
  public static final int MAX_TEXT_CHARS = 1000;

  /**
   * The most characters {@link #tenant()}, {@link #tool()} and {@link #key()} keep, each: a valid
   * one ({@value ClaimId#MAX_LENGTH} code points) is never cut.
   */
  public static final int MAX_NAME_CHARS = 2 * ClaimId.MAX_LENGTH;

  /** The most characters {@link #argsHash()} keeps. */
  public static final int MAX_HASH_CHARS = 80;

  /** The most characters of text a record holds, in all. */
  public static final int MAX_CHARS =
      MAX_ARGUMENTS_CHARS + 2 * MAX_TEXT_CHARS + 3 * MAX_NAME_CHARS + MAX_HASH_CHARS;

  /**
   * Cuts each text to its budget (see above), saying so at its end.
   *
   * @throws NullPointerException if at, tool, arguments or decision is null
   */
  public AuditRecord {
    Checks.notNull(at, "at");
    Checks.notNull(tool, "tool");
    Checks.notNull(arguments, "arguments");
    Checks.notNull(decision, "decision");
    tenant = AuditTexts.cut(tenant, MAX_NAME_CHARS);
    tool = AuditTexts.cut(tool, MAX_NAME_CHARS);
    key = AuditTexts.cut(key, MAX_NAME_CHARS);
    argsHash = AuditTexts.cut(argsHash, MAX_HASH_CHARS);
    arguments = AuditTexts.cut(arguments, MAX_ARGUMENTS_CHARS);
    reason = AuditTexts.cut(reason, MAX_TEXT_CHARS);
    resultSummary = AuditTexts.cut(resultSummary, MAX_TEXT_CHARS);
  }
}
