package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.GateResult;
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
}
