package dev.mcpgate.testkit.junit;

import dev.mcpgate.testkit.GateChecks;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The tests of {@link McpGateChecks}: implement it in a test class, say where the server is with
 * {@link McpServerUnderTest}, and override {@link #configureGateChecks} for the tools that need
 * real arguments, probes or an arrival-order scenario.
 */
@ExtendWith(McpGateChecksExtension.class)
public interface GatedToolsTest {

  /**
   * @return a survey test, then a container per write tool with one test per check
   */
  @TestFactory
  @DisplayName("MCP Gate checks")
  default Stream<DynamicNode> mcpGateChecks(GateChecks checks) {
    return McpGateChecksExtension.tests(checks, getClass());
  }

  /**
   * Called once, before the checks are planned.
   *
   * @param checks the checks of the server under test: give tools arguments, probes, scenarios
   */
  default void configureGateChecks(GateChecks checks) {}
}
