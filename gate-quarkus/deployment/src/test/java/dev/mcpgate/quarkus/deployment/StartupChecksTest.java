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
 * A gated tool whose {@code @Idempotent} the gate refuses stops the startup, not its first call.
 */
class StartupChecksTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(MailTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining(
                          "MCP Gate cannot gate tool sendMail"
                              + " (dev.mcpgate.quarkus.deployment.StartupChecksTest$MailTools"
                              + "#sendMail)")
                      .hasStackTraceContaining("two hours"));

  @Test
  void theStartupFails() {
    // the assertion is the extension's: the application must not start
  }

  /** A tool whose retention is not a duration. */
  public static class MailTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(retention = "two hours")
    ToolResponse sendMail(
        String to, @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success("sent");
    }
  }
}
