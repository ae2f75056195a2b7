package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gated tool with a {@code double} argument stops the startup: the MCP server decodes it as a
 * double, which the gate refuses, so every call of the tool would be refused, whole numbers too.
 */
class DoubleArgumentStartupTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(PayTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining(
                          "MCP Gate cannot gate tool pay"
                              + " (dev.mcpgate.quarkus.deployment.DoubleArgumentStartupTest"
                              + "$PayTools#pay): its argument amount is a double")
                      .hasStackTraceContaining("mcpgate.accept-inexact-numbers=true"));

  @Test
  void theStartupFails() {
    // the assertion is the extension's: the application must not start
  }

  /** A tool that takes an amount as a double. */
  public static class PayTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse pay(
        String account,
        double amount,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success("paid");
    }
  }
}
