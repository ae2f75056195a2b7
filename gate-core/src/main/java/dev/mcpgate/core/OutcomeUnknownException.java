package dev.mcpgate.core;

/**
 * Thrown by an action (or chosen by {@link GatePolicy#outcomeUnknownWhen()}) when it cannot tell
 * whether its effect happened, for example after a timeout on a downstream call. The gate then
 * keeps the key fenced in the {@code UNKNOWN} state instead of releasing it: a retry asks the
 * policy's {@link Reconciler} (which looks downstream by the {@linkplain
 * ClaimContext#downstreamKey() downstream key}), and without a verdict is refused with "outcome
 * unknown" until an operator settles the key ({@link IdempotencyGate#resolveUnknown}) or the
 * policy's {@linkplain GatePolicy#unknownFence() unknown fence} runs out. The lease running out
 * does not free it.
 *
 * <p>The gate throws it too, to say that an action ran (or may have) and what became of its effect
 * is not known; {@link CommitOutcomeUnknownException} is the case where a retry with the same key
 * finds out.
 */
public class OutcomeUnknownException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what is unknown
   */
  public OutcomeUnknownException(String message) {
    super(message);
  }

  /**
   * @param message what is unknown
   * @param cause the failure that made it unknown
   */
  public OutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
