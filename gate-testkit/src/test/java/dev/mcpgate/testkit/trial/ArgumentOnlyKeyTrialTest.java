package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/testkit.md section 4: "The idempotency key goes where the tool's _meta
 * dev.mcpgate/idempotency says the gate reads it (an argument, or _meta ...), new for each check."
 * A tool gated with {@code keySources(ARGUMENT)} (key only from the argument) lists its key
 * argument as required in its input schema; the schema-made arguments then fill it with the sample
 * text "mcpgate-check" before the kit would add its key, and every check of every run sends that
 * same key. The concurrent-first-calls check then replays the retry check's result: no first call
 * runs.
 */
class ArgumentOnlyKeyTrialTest {

  @Test
  void eachCheckOfAnArgumentKeyedToolSendsANewKey() {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification refund =
        TrialServer.gate()
            .gate(
                new SyncToolSpecification(
                    TrialServer.writeTool(
                        "refund_order", Map.of("order_id", Map.of("type", "string"))),
                    (ex, req) -> {
                      runs.incrementAndGet();
                      return CallToolResult.builder().addTextContent("refunded").build();
                    }),
                ToolPolicy.builder().keySources(KeySource.ARGUMENT).build());
    try (McpHarness harness = McpHarness.stdio(List.of(refund))) {
      GateChecks checks = GateChecks.of(harness.client(null));
      McpSchema.Tool listed = harness.client(null).listTools().tools().get(0);
      assertThat(listed.inputSchema().get("required").toString()).contains("idempotency_key");

      checks.runAll(); // passes
      assertThat(runs.get())
          .as("runs for the retry check and the concurrent-first-calls check, one new key each")
          .isEqualTo(2);
    }
  }

  /**
   * Two runs of the checks against one store (a second build against a shared database, or two test
   * classes on one server): the second run's checks all pass on replays of the first run's result,
   * the tool never running.
   */
  @Test
  void aSecondRunOfTheChecksRunsTheTool() {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification refund =
        TrialServer.gate()
            .gate(
                new SyncToolSpecification(
                    TrialServer.writeTool(
                        "refund_order", Map.of("order_id", Map.of("type", "string"))),
                    (ex, req) -> {
                      runs.incrementAndGet();
                      return CallToolResult.builder().addTextContent("refunded").build();
                    }),
                ToolPolicy.builder().keySources(KeySource.ARGUMENT).build());
    try (McpHarness harness = McpHarness.stdio(List.of(refund))) {
      GateChecks.of(harness.client(null)).runAll();
      int afterFirstRun = runs.get();
      GateChecks.of(harness.client(null)).runAll();
      assertThat(runs.get() - afterFirstRun).as("runs of the tool in the second run").isPositive();
    }
  }
}
