package dev.mcpgate.core.internal.engine.violation;

import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.internal.engine.GateEngine;
import dev.mcpgate.core.internal.engine.Ticker;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.InstantSource;
import java.util.List;

/**
 * Builds an engine per tool, outside the gate's builder: what {@code OneEnginePerGateTest} shows
 * its wiring rule catches. Test code only; never imported with main classes.
 */
final class RebuildsTheEnginePerPolicy {
  private RebuildsTheEnginePerPolicy() {}

  static GateEngine forTool(IdempotencyStore store) {
    return new GateEngine(
        store,
        ResultCodec.identity(),
        List.of(),
        InstantSource.system(),
        null,
        null,
        Ticker.SYSTEM,
        java.time.Duration.ZERO);
  }
}
