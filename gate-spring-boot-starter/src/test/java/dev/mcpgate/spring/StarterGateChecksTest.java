package dev.mcpgate.spring;

import dev.mcpgate.testkit.GateChecks;
import dev.mcpgate.testkit.junit.GatedToolsTest;
import dev.mcpgate.testkit.junit.McpGateChecks;
import dev.mcpgate.testkit.junit.McpServerUnderTest;
import org.junit.jupiter.api.AfterAll;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The test kit's JUnit extension on a starter-gated Spring Boot application: one annotation, and
 * every write tool the starter gated is retried and raced through a real MCP client against the
 * running context (the kit finds its port, MCP endpoint and tenant header). The test server's
 * ungated {@code add_note} is declared safe by {@code mcpgate.safe-tools} and left out of the
 * checks (which would fail on it: it writes twice), so the survey passes.
 */
@McpGateChecks(tenant = "checks-tenant", showSkippedChecks = false)
class StarterGateChecksTest implements GatedToolsTest {
  private static ConfigurableApplicationContext app;

  @McpServerUnderTest
  static synchronized ConfigurableApplicationContext app() {
    if (app == null) {
      app =
          SpringBootStarterTest.server(
                  "mcpgate.safe-tools=add_note", "mcpgate.table-name=mcpgate_checks_claims")
              .run();
    }
    return app;
  }

  @Override
  public void configureGateChecks(GateChecks checks) {
    // the test server's deliberately ungated write, kept to show the startup survey
    checks.tool("add_note").skip("the test server's deliberately ungated write");
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }
}
