package dev.mcpgate.mcp;

import dev.mcpgate.core.ActionFailedException;
import dev.mcpgate.core.GatePolicy;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.CancellationException;

/**
 * Tells, from what a handler threw out of the gate, whether the gate fenced the key as unknown
 * rather than releasing it, by the core's rule: the policy says the failure means an unknown
 * outcome, or the handler was interrupted or cancelled midway. Such a call ran, or may have, and
 * the model must be told so, not that a retry runs again.
 */
final class HandlerFailures {
  private HandlerFailures() {}

  /**
   * @param policy the tool's policy
   * @param failure what came out of the gate
   * @return true when the gate fenced the key as unknown for this failure
   */
  static boolean fenced(GatePolicy policy, RuntimeException failure) {
    if (policy.isOutcomeUnknown(failure) || interrupted(failure)) {
      return true;
    }
    // a checked exception of a transactional handler reaches us wrapped; the policy saw it bare
    return failure instanceof ActionFailedException && failure.getCause() != null
        && policy.isOutcomeUnknown(failure.getCause());
  }

  private static boolean interrupted(Throwable failure) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InterruptedException || t instanceof CancellationException
          || t instanceof InterruptedIOException || t instanceof ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }
}
