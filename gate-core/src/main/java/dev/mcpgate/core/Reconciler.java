package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;

/**
 * Decides an unknown outcome when a retry finds the key fenced as unknown, instead of refusing the
 * retry until its fence runs out. It asks the downstream system, by the claim's {@linkplain
 * DownstreamKey downstream key}, whether the effect happened.
 *
 * <pre>{@code
 * GatePolicy.builder().reconciler((id, downstreamKey) ->
 *     payments.findRefund(downstreamKey)
 *         .map(refund -> Reconciler.Verdict.happened(json.writeValueAsBytes(resultOf(refund))))
 *         .orElse(Reconciler.Verdict.notHappened()))
 * }</pre>
 */
@FunctionalInterface
public interface Reconciler {

  /**
   * @param id the claim whose outcome is unknown
   * @param downstreamKey the key every attempt of it forwarded downstream
   * @return what happened; an exception counts as {@link Verdict.StillUnknown}
   * @throws Exception when the downstream system cannot be asked
   */
  Verdict reconcile(ClaimId id, String downstreamKey) throws Exception;

  /** What the reconciler found. */
  sealed interface Verdict {
    /**
     * @param result the result bytes to store and replay, as the call's {@link ResultMapper} writes
     *     them
     * @return the effect happened, with this result
     */
    static Verdict happened(byte[] result) {
      return new Happened(result);
    }

    /**
     * @return the effect did not happen: a retry may run the action now
     */
    static Verdict notHappened() {
      return new NotHappened();
    }

    /**
     * @return still unknown: retries stay refused until the fence runs out or is settled
     */
    static Verdict stillUnknown() {
      return new StillUnknown();
    }

    /**
     * The effect happened; the result is stored and replayed.
     *
     * @param result the result bytes, as the call's {@link ResultMapper} writes them
     */
    record Happened(byte[] result) implements Verdict {
      /**
       * @throws NullPointerException if result is null
       */
      public Happened {
        Checks.notNull(result, "result");
      }
    }

    /** The effect did not happen; the fence is lifted and the retry runs the action. */
    record NotHappened() implements Verdict {}

    /** Still unknown; the retry is refused. */
    record StillUnknown() implements Verdict {}
  }
}
