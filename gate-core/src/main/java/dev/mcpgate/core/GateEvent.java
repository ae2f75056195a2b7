package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;

/**
 * One decision of the gate, for listeners (logs, metrics, an audit sink).
 *
 * @param type what was decided
 * @param id the claim
 * @param attempt the attempt number concerned (0 when no attempt is, as for a conflict)
 * @param message a sentence for logs
 * @param error the failure behind the event, or null
 */
public record GateEvent(Type type, ClaimId id, int attempt, String message, Throwable error) {

  /** @throws NullPointerException if type, id or message is null */
  public GateEvent {
    Checks.notNull(type, "type");
    Checks.notNull(id, "id");
    Checks.notNull(message, "message");
  }

  /** The kinds of decision. */
  public enum Type {
    /** A first attempt claimed the key; the action runs. */
    FRESH,
    /** An attempt took over an earlier attempt's expired lease; the action runs again. */
    TAKEOVER,
    /** A stored result was returned; nothing ran. */
    REPLAYED,
    /** The key was reused with other arguments; refused. */
    CONFLICT,
    /** Another attempt is running the call; refused with retry-after (after any wait). */
    IN_FLIGHT,
    /** A result was stored. */
    COMPLETED,
    /** The claim was released (the action failed); a retry runs again. */
    RELEASED,
    /** The action's outcome is unknown; the key is fenced. */
    OUTCOME_UNKNOWN,
    /** A stale attempt learned that another attempt took over its lease. */
    LEASE_LOST,
    /** Storing a result (or releasing a claim) failed after the action ran. */
    COMPLETION_FAILED
  }
}
