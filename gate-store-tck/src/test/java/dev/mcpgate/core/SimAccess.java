package dev.mcpgate.core;

import dev.mcpgate.core.internal.engine.Ticker;

/** For the simulation's tests: the builder's package-private ticker, which is not API. */
public final class SimAccess {
  private SimAccess() {}

  /**
   * @return {@code builder}, its engine timed and waiting by {@code ticker}
   */
  public static IdempotencyGate.Builder ticker(IdempotencyGate.Builder builder, Ticker ticker) {
    return builder.ticker(ticker);
  }
}
