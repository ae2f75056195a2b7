package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/testkit.md opens with "having a test that fails when someone removes a guard". Settings for
 * a tool the server does not list (a typo, or a tool renamed since the test was written) are
 * silently ignored: here the arrival-order scenario of a last-write-wins stop is configured under
 * its old name, the check of the real tool becomes "skipped: no arrival-order scenario", and
 * runAll() passes. The kit never says that a configured tool does not exist.
 */
class UnknownToolSettingsTrialTest {

  @Test
  void settingsForAToolTheServerDoesNotListAreReported() {
    Map<String, String> stoppedAt = new ConcurrentHashMap<>();
    SyncToolSpecification stop =
        TrialServer.gate()
            .gate(
                new SyncToolSpecification(
                    TrialServer.writeTool(
                        "stop_session",
                        Map.of(
                            "session_id",
                            Map.of("type", "string"),
                            "at",
                            Map.of("type", "string"))),
                    (ex, req) -> {
                      stoppedAt.put(
                          (String) req.arguments().get("session_id"),
                          (String) req.arguments().get("at")); // last write wins
                      return CallToolResult.builder().addTextContent("stopped").build();
                    }),
                ToolPolicy.defaults());
    try (McpHarness harness = McpHarness.stdio(List.of(stop))) {
      GateChecks checks = GateChecks.of(harness.client(null));
      AtomicInteger ids = new AtomicInteger();
      checks
          .tool("close_session") // the tool's name before it was renamed stop_session
          .arrivalOrder(
              () -> "s-" + ids.incrementAndGet(),
              id -> call(id, "14:05", "k-" + ids.incrementAndGet()),
              id -> call(id, "14:20", "k-" + ids.incrementAndGet()),
              stoppedAt::get);
      AssertionError failure = null;
      try {
        checks.runAll();
      } catch (AssertionError | RuntimeException e) {
        failure = new AssertionError(e.getMessage(), e);
      }
      assertThat(failure)
          .as("what the kit says of settings for close_session, which the server does not list")
          .isNotNull();
      assertThat(failure.getMessage()).contains("close_session");
    }
  }

  private static CallToolRequest call(String id, String at, String key) {
    return new CallToolRequest(
        "stop_session", Map.of("session_id", id, "at", at, "idempotency_key", key));
  }
}
