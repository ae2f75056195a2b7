package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import dev.mcpgate.testkit.RetryCheck;
import dev.mcpgate.testkit.ToolSurvey;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * A gated tool whose first call answers an error (an order that does not exist, or arguments the
 * input schema rejects, as the kit's sample arguments often are). The gate releases an error's key
 * by default, so the retry runs again and carries no replay mark. The kit then says "the retry
 * carries no replay mark ..., so the tool is not gated": untrue (the survey lists it as gated, and
 * it is), and silent on the real cause, the first call's error. A user of @McpGateChecks who leaves
 * out arguments(...) for a gated tool is told to gate a tool that is gated.
 */
class ErrorAnswerMessageTrialTest {
  private final Map<String, Integer> refunds = new ConcurrentHashMap<>();

  private SyncToolSpecification refundOrder(Map<String, Object> orderIdSchema) {
    McpSchema.Tool tool =
        TrialServer.writeTool(
            "refund_order",
            Map.of("order_id", orderIdSchema, "amount_cents", Map.of("type", "integer")));
    return TrialServer.gate()
        .gate(
            new SyncToolSpecification(
                tool,
                (ex, req) -> {
                  String order = (String) req.arguments().get("order_id");
                  if (!order.startsWith("o-")) {
                    return CallToolResult.builder()
                        .addTextContent("no order " + order)
                        .isError(true)
                        .build();
                  }
                  refunds.merge(order, 1, Integer::sum);
                  return CallToolResult.builder().addTextContent("refunded").build();
                }),
            ToolPolicy.defaults());
  }

  private static void assertHonest(AssertionFailedError failure, String cause) {
    assertThat(failure).as("the kit's verdict on a call that answered an error").isNotNull();
    assertThat(failure.getMessage())
        .as("what the kit says of a gated tool whose first call answered an error")
        .doesNotContain("the tool is not gated")
        .contains(cause);
  }

  @Test
  void aGatedToolWhoseFirstCallAnswersAnErrorIsNotCalledUngated() {
    try (McpHarness harness = McpHarness.stdio(List.of(refundOrder(Map.of("type", "string"))))) {
      McpSyncClient client = harness.client(null);
      assertThat(ToolSurvey.of(client).entries().get(0).kind()).isEqualTo(ToolSurvey.Kind.GATED);
      AssertionFailedError failure = null;
      try {
        RetryCheck.of(client)
            .assertSafeToRetry(
                new CallToolRequest(
                    "refund_order",
                    Map.of("order_id", "x-9", "amount_cents", 500, "idempotency_key", "k-1")));
      } catch (AssertionFailedError e) {
        failure = e;
      }
      assertHonest(failure, "no order x-9");
    }
  }

  /** What @McpGateChecks runs for a gated tool left without arguments(...). */
  @Test
  void gateChecksOnAGatedToolWithSampleArgumentsTheSchemaRejectsSayWhy() {
    try (McpHarness harness =
        McpHarness.stdio(List.of(refundOrder(Map.of("type", "string", "pattern", "^o-[0-9]+$"))))) {
      GateChecks checks = GateChecks.of(harness.client(null));
      GateChecks.Planned retry =
          checks.plan().stream()
              .filter(p -> p.check().equals(GateChecks.RETRY))
              .findFirst()
              .orElseThrow();
      AssertionFailedError failure = null;
      try {
        retry.run().run();
      } catch (AssertionFailedError e) {
        failure = e;
      }
      assertHonest(failure, "order_id");
    }
  }
}
