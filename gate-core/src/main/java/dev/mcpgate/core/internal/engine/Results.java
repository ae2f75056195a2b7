package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.GateResult;
import java.time.Duration;

/** The results of calls, given what the gate knew of each call when it decided it. */
final class Results {
  private Results() {}

  /**
   * @param result what was decided, as the attempt, the replay or the refusal built it
   * @param argsHash the hash the call was claimed with
   * @param keySource where its key came from, or null
   * @param waited the wait its decision event was told with
   * @return the same result, carrying the call's hash, key source and wait
   */
  static <T> GateResult<T> decided(
      GateResult<T> result, String argsHash, String keySource, Duration waited) {
    if (result instanceof GateResult.Executed<T> e) {
      return new GateResult.Executed<>(
          e.id(), e.value(), e.claim(), e.completion(), argsHash, keySource, waited);
    }
    if (result instanceof GateResult.Replayed<T> r) {
      return new GateResult.Replayed<>(
          r.id(),
          r.value(),
          r.failure(),
          r.attempt(),
          r.firstExecutedAt(),
          r.completedAt(),
          argsHash,
          keySource,
          waited);
    }
    GateResult.Refused<T> r = (GateResult.Refused<T>) result; // the sealed type's last case
    return new GateResult.Refused<>(
        r.id(), r.reason(), r.retryAfter(), r.message(), argsHash, keySource, waited);
  }
}
