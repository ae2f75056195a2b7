package dev.mcpgate.core.audit;

/** What was decided about a call, as the audit trail records it. */
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
  /** An earlier attempt's outcome is unknown, or this one's is; see the reason. */
  OUTCOME_UNKNOWN,
  /** The call ran before but its result was too large to keep; nothing ran. */
  RESULT_NOT_STORED,
  /** The action ran and failed, or returned a failure result; the claim was released. */
  RELEASED,
  /** The action ran, but another attempt had taken the key over: its result was not stored. */
  LEASE_LOST,
  /** The call had no usable key (missing, invalid, two different ones); nothing ran. */
  KEY_REFUSED,
  /** The call's tenant was unknown or invalid, or the authorizer refused it; nothing ran. */
  TENANT_REFUSED,
  /** The store could not be reached, or a commit rolled back; see the reason. */
  STORE_UNAVAILABLE
}
