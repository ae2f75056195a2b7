package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.StoreUnavailableException;
import java.time.Duration;

/** The result of an attempt that ran, given what the gate knew of its call when it decided. */
final class Results {
  private Results() {}

  /**
   * @param executed what the attempt came to, as the runner built it
   * @param argsHash the hash the call was claimed with
   * @param keySource where its key came from, or null
   * @param waited the wait its decision event was told with
   * @return the same result, carrying the call's hash, key source and wait
   */
  static <T> GateResult.Executed<T> decided(
      GateResult.Executed<T> executed, String argsHash, String keySource, Duration waited) {
    return new GateResult.Executed<>(
        executed.id(),
        executed.value(),
        executed.claim(),
        executed.completion(),
        argsHash,
        keySource,
        waited);
  }

  /**
   * A stored result that cannot be read back: the call ran before, nothing runs now.
   *
   * @param what which part could not read it ({@code codec} or {@code result mapper})
   */
  static CallFailure unreadable(ClaimId id, int bytes, String what, RuntimeException e) {
    return new CallFailure(
        FailureReason.RESULT_UNREADABLE,
        GateResult.Effect.YES,
        e instanceof StoreUnavailableException, // a key service that did not answer: try again
        null,
        "the stored result of "
            + id
            + " cannot be read back by the "
            + what
            + " ("
            + bytes
            + (e instanceof StoreUnavailableException
                ? " bytes) now: "
                    + e.getMessage()
                    + "; a retry with the same key replays it once it can"
                : " bytes); was the result mapper or codec changed, or a codec key dropped?"),
        e);
  }
}
