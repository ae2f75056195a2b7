package dev.mcpgate.mcp;

/**
 * What a tool does with a call whose key another attempt is still running (same arguments, its
 * lease alive).
 *
 * <p>Either way the duplicate never runs a second time; only the answer's timing differs. Per tool:
 * {@link ToolPolicy.Builder#inFlight}, {@link Idempotent#inFlight()}.
 */
public enum InFlight {
  /**
   * Wait up to the gate's in-flight wait ({@code GatePolicy.inFlightWait}, 5 s by default) for the
   * running attempt's result and answer with it (a replay); still running then: refuse with {@code
   * idempotency_key_in_progress} and {@code retry_after_ms}. The default, and what a model caller
   * is best served by: it gets the first result instead of an error to retry.
   */
  WAIT,
  /**
   * Refuse at once with {@code idempotency_key_in_progress} and {@code retry_after_ms}, holding no
   * thread for the wait: the behaviour SEP-3182 specifies, for clients that retry on their own
   * schedule. Sets the tool's in-flight wait to zero.
   */
  REFUSE
}
