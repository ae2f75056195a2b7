package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import dev.mcpgate.testkit.ToolSurvey;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/testkit.md opens with "knowing which of your tools still write twice, and having a test that
 * fails when someone removes a guard". A gated tool changed to {@code required(false)} (documented
 * in mcp-adapter.md: a call without a key runs ungated) writes twice on a keyless retry, what a
 * model that leaves out the optional key sends. The survey lists it as plain "gated" (its detail
 * does not say the key is optional), and every check passes, since the kit always sends a key: the
 * guard is gone for keyless callers and nothing in the kit says so.
 */
class OptionalKeySurveyTrialTest {

  @Test
  void aToolThatRunsKeylessCallsUngatedIsNotReportedAsPlainlyGated() {
    AtomicInteger refunds = new AtomicInteger();
    SyncToolSpecification refund =
        TrialServer.gate()
            .gate(
                new SyncToolSpecification(
                    TrialServer.writeTool(
                        "refund_order", Map.of("order_id", Map.of("type", "string"))),
                    (ex, req) -> {
                      refunds.incrementAndGet();
                      return CallToolResult.builder().addTextContent("refunded").build();
                    }),
                ToolPolicy.builder().required(false).build());
    try (McpHarness harness = McpHarness.stdio(List.of(refund))) {
      McpSyncClient client = harness.client(null);

      // what a keyless caller gets: a retry writes twice
      CallToolRequest keyless = new CallToolRequest("refund_order", Map.of("order_id", "o-1"));
      client.callTool(keyless);
      client.callTool(keyless);
      assertThat(refunds).hasValue(2);

      GateChecks checks = GateChecks.of(client);
      AssertionError checksFailure = null;
      try {
        checks.runAll();
      } catch (AssertionError e) {
        checksFailure = e;
      }
      ToolSurvey.Entry entry = ToolSurvey.of(client).entries().get(0);
      assertThat(checksFailure != null || !entry.detail().contains("key: argument"))
          .as(
              "the kit says something of a tool whose keyless calls run ungated;"
                  + " survey: %s %s; every check passed: %s",
              entry.kind(), entry.detail(), checksFailure == null)
          .isTrue();
    }
  }
}
