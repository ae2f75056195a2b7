package dev.mcpgate.quarkus.internal;

import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.spi.IdempotencyStore;

/**
 * Metrics of the gate and its store; a bean only when the application has Micrometer ({@link
 * MicrometerMetrics}), so that nothing here names Micrometer's types otherwise.
 */
interface StoreMetrics {
  /**
   * @return the store, its operations timed
   */
  IdempotencyStore timed(IdempotencyStore store);

  /**
   * @return the listener that counts the gate's decisions
   */
  GateListener listener(IdempotencyStore store);
}
