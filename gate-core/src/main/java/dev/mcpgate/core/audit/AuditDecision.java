package dev.mcpgate.core.audit;

import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.RefusalReason;

/**
 * What was decided about a call, as the audit trail records it. The gate's results map to it by
 * {@link #of(GateResult)}, its refusals by {@link #of(RefusalReason)}, its failures by {@link
 * #of(FailureReason)}; the rest (a key or a tenant refused, a failure before the gate decided) are
 * the adapter's decisions before or around the gate.
 */
public enum AuditDecision {
  /** The action ran and its result is stored. */
  EXECUTED,
  /** The action ran after taking over an earlier attempt whose lease ran out. */
  TAKEOVER,
  /** A stored result was returned; nothing ran. */
  REPLAYED,
  /** The key was used before with other arguments; nothing ran. */
  CONFLICT,
  /** Another attempt was running with the key; nothing ran. */
  IN_PROGRESS,
  /** Another attempt held the key but had stopped responding; nothing ran. */
  HOLDER_UNRESPONSIVE,
  /**
   * An outcome is unknown: with an attempt above 0, this call's (it ran); with attempt 0, an
   * earlier attempt's (nothing ran now); see the reason.
   */
  OUTCOME_UNKNOWN,
  /**
   * The result was too large to keep: with an attempt above 0, this call ran and took effect; with
   * attempt 0, it ran before and nothing ran now.
   */
  RESULT_NOT_STORED,
  /** The action ran and failed, or returned a failure result; the claim was released. */
  RELEASED,
  /** The action ran, but another attempt had taken the key over: its result was not stored. */
  LEASE_LOST,
  /**
   * The call had no usable key (missing, invalid, two different ones), or arguments that cannot be
   * hashed; nothing ran.
   */
  KEY_REFUSED,
  /** The call's tenant was unknown or invalid, or the authorizer refused it; nothing ran. */
  TENANT_REFUSED,
  /** The store could not be reached, or a commit rolled back; see the reason. */
  STORE_UNAVAILABLE,
  /**
   * The call failed outside the gate's decisions, or its stored result could not be read back: a
   * hook of the adapter's (an authorizer, a key digest) or the gate itself threw, the gate was
   * closed, or the mapper or codec could not read a stored result; see the reason. Nothing ran in
   * this call.
   */
  FAILED;

  /**
   * @param reason why the gate refused a call
   * @return the audit decision of that refusal: one for each reason
   */
  public static AuditDecision of(RefusalReason reason) {
    return switch (reason) {
      case CONFLICT -> CONFLICT;
      case IN_PROGRESS -> IN_PROGRESS;
      case HOLDER_UNRESPONSIVE -> HOLDER_UNRESPONSIVE;
      case OUTCOME_UNKNOWN -> OUTCOME_UNKNOWN;
      case RESULT_NOT_STORED -> RESULT_NOT_STORED;
    };
  }

  /**
   * @param completion what happened to the result of an attempt that ran
   * @param takeover whether that attempt took over an earlier one's expired lease
   * @return the audit decision of that attempt
   */
  public static AuditDecision of(GateResult.Completion completion, boolean takeover) {
    return switch (completion) {
      case STORED -> takeover ? TAKEOVER : EXECUTED;
      case RELEASED -> RELEASED;
      case LEASE_LOST -> LEASE_LOST;
      case STORE_FAILED -> STORE_UNAVAILABLE;
    };
  }

  /**
   * @param result what the gate did with a call
   * @return the audit decision of it
   */
  public static AuditDecision of(GateResult<?> result) {
    return result.fold(
        executed -> of(executed.completion(), executed.claim().isTakeover()),
        replayed -> REPLAYED,
        refused -> of(refused.reason()),
        failed -> of(failed.reason()));
  }

  /**
   * @param reason why the gate failed a call
   * @return the audit decision of that failure: one for each reason
   */
  public static AuditDecision of(FailureReason reason) {
    return switch (reason) {
      case STORE_UNAVAILABLE, ROLLED_BACK -> STORE_UNAVAILABLE;
      case LEASE_LOST -> LEASE_LOST;
      case COMMIT_UNKNOWN, OUTCOME_UNKNOWN -> OUTCOME_UNKNOWN;
      case ACTION_FAILED -> RELEASED;
      case RESULT_TOO_LARGE -> RESULT_NOT_STORED;
      case ARGUMENTS_INVALID -> KEY_REFUSED;
      case RESULT_UNREADABLE, GATE_CLOSED -> FAILED;
    };
  }
}
