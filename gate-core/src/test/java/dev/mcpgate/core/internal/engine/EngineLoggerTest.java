package dev.mcpgate.core.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import org.junit.jupiter.api.Test;

/**
 * One logger per concern, named by class: the engine logs under the gate's name, which {@code
 * Slf4jGateListener} gets from the class, so that one call's lines are under one logger.
 */
class EngineLoggerTest {
  @Test
  void theEngineLogsUnderTheGatesClassName() {
    assertThat(Events.LOGGER).isEqualTo(IdempotencyGate.class.getName());
  }
}
