package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import org.junit.jupiter.api.Test;

/**
 * The adapter's tests run twice: with the SDK's Jackson 2 module and with its Jackson 3 module (see
 * the surefire executions in the pom). This checks that each run really has the module it claims,
 * so the Jackson 3 run cannot quietly fall back to Jackson 2.
 */
class JsonModuleTest {

  @Test
  void theRunUsesTheJsonModuleItIsMeantFor() {
    String expected = System.getProperty("mcpgate.expectedJson", "jackson2");
    assertThat(McpJsonDefaults.getMapper().getClass().getName())
        .isEqualTo("io.modelcontextprotocol.json." + expected + ".JacksonMcpJsonMapper");
  }
}
