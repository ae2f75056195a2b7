package dev.mcpgate.core.spi;

import java.time.Duration;

/**
 * The duration check of the store SPI, for store authors: API, kept compatible like the rest of
 * {@code dev.mcpgate.core.spi}.
 *
 * <p>The gate passes every retention, lease, renewal budget ({@code within}) and unknown fence to
 * an {@link IdempotencyStore} as at least one millisecond, the finest step a store keeps. A store
 * checks each one with {@link #atLeastOneMs} before it writes anything, so that a store of its own
 * rejects a bad duration with the same exception and message as the stores MCP Gate ships; a
 * store's builder may check its own durations (a command timeout) with it too.
 */
public final class StoreArguments {
  private StoreArguments() {}

  /**
   * @param duration the duration to check
   * @param name what the duration is, for the message ({@code "lease"})
   * @return duration, when it is at least one millisecond
   * @throws NullPointerException if duration is null: "{@code name} must not be null"
   * @throws IllegalArgumentException if it is shorter than one millisecond (zero or negative
   *     included): "{@code name} must be at least 1 ms, was {@code duration}"
   */
  public static Duration atLeastOneMs(Duration duration, String name) {
    if (duration == null) {
      throw new NullPointerException(name + " must not be null");
    }
    if (duration.toMillis() < 1) {
      throw new IllegalArgumentException(name + " must be at least 1 ms, was " + duration);
    }
    return duration;
  }
}
