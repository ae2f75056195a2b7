package dev.mcpgate.core;

/**
 * The effect a gate protects: runs at most once per live claim.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface GateAction<T> {

  /**
   * @param context the claim this attempt runs under (takeover or not, downstream key, heartbeat)
   * @return the result, which the gate stores for replay
   * @throws Exception any failure; by default the claim is released so that a retry runs again
   */
  T run(ClaimContext context) throws Exception;
}
