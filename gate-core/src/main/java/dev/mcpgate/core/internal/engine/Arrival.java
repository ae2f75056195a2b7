package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ToolCall;
import java.time.Duration;

/**
 * One arrival of a call, for the events of its decision: where its key came from, whether (and
 * since when) it waited on another attempt, and when its last claim was sent (by {@link
 * Ticker#nanoTime()}), from which an acquired lease is counted.
 */
final class Arrival {
  private final Ticker ticker;
  private final String keySource;
  private final long startNanos;
  private boolean waited;
  private long sentNanos;
  private Duration told = Duration.ZERO;

  private Arrival(Ticker ticker, String keySource, long startNanos) {
    this.ticker = ticker;
    this.keySource = keySource;
    this.startNanos = startNanos;
    this.sentNanos = startNanos;
  }

  static Arrival of(ToolCall call, Ticker ticker) {
    return new Arrival(ticker, call.keySource(), ticker.nanoTime());
  }

  String keySource() {
    return keySource;
  }

  long startNanos() {
    return startNanos;
  }

  /**
   * @return {@link Ticker#nanoTime()} just before the last claim of this arrival was sent
   */
  long sentNanos() {
    return sentNanos;
  }

  void waiting() {
    waited = true;
  }

  void sending() {
    sentNanos = ticker.nanoTime();
  }

  /**
   * @return how long it waited on another attempt; zero when it did not (kept as what its decision
   *     was told with, for the call's result)
   */
  Duration waitedFor() {
    told = waited ? Duration.ofNanos(ticker.nanoTime() - startNanos) : Duration.ZERO;
    return told;
  }

  /**
   * @return the wait the last decision event of this arrival was told with; zero before one
   */
  Duration told() {
    return told;
  }
}
