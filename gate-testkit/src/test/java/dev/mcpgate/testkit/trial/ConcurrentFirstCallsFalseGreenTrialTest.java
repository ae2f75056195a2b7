package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.RetryCheck;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * docs/testkit.md: "assertConcurrentFirstCallsRunOnce(freshCall): 8 concurrent copies of a call
 * never sent before get one answer, and change the probes as one call does", and "Gated tools pass
 * on the gate's replay marks with no probe".
 */
class ConcurrentFirstCallsFalseGreenTrialTest {

  private static final McpSchema.Tool REFUND =
      TrialServer.writeTool(
          "refund_order",
          Map.of("order_id", Map.of("type", "string"), "amount_cents", Map.of("type", "integer")));

  private static SyncToolSpecification refund(AtomicInteger runs) {
    return new SyncToolSpecification(
        REFUND,
        (ex, req) -> {
          runs.incrementAndGet();
          TrialServer.sleep(300); // a payment provider's round trip
          return CallToolResult.builder()
              .addTextContent(
                  "refunded "
                      + req.arguments().get("amount_cents")
                      + " on "
                      + req.arguments().get("order_id"))
              .build();
        });
  }

  private static CallToolRequest refundCall(String key) {
    return new CallToolRequest(
        "refund_order", Map.of("order_id", "o-1", "amount_cents", 500, "idempotency_key", key));
  }

  /**
   * Two replicas of one server, each with its own in-memory store, behind a round-robin balancer: a
   * real deployment mistake that makes a gated tool run once per replica. Of 8 concurrent first
   * calls, each replica runs one and replays it to the others; the tool runs twice, and the answers
   * (deterministic text) are all equal. Without probes, the kit passes it: it never counts how many
   * of the answers were not replays.
   */
  @Test
  void concurrentFirstCallsThatRanTwiceOnAGatedToolFailTheCheck() {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification replicaA = TrialServer.gate().gate(refund(runs), ToolPolicy.defaults());
    SyncToolSpecification replicaB = TrialServer.gate().gate(refund(runs), ToolPolicy.defaults());
    AtomicInteger next = new AtomicInteger();
    SyncToolSpecification balanced =
        new SyncToolSpecification(
            replicaA.tool(),
            (ex, req) ->
                (next.getAndIncrement() % 2 == 0 ? replicaA : replicaB)
                    .callHandler()
                    .apply(ex, req));
    try (McpHarness harness = McpHarness.stdio(List.of(balanced))) {
      RetryCheck check = RetryCheck.of(harness.client(null));
      AssertionFailedError failure = null;
      try {
        check.assertConcurrentFirstCallsRunOnce(refundCall("k-fresh"));
      } catch (AssertionFailedError e) {
        failure = e;
      }
      assertThat(runs.get()).as("the tool's runs for one intent").isEqualTo(2);
      assertThat(failure)
          .as("the kit's verdict on 8 concurrent first calls that ran the refund twice")
          .isNotNull();
    }
  }

  /**
   * The same check, with a probe on the refunds but no expectFirstCallChange: the probe is not
   * looked at once any answer carries a replay mark, so two refunds pass as well.
   */
  @Test
  void aProbeWithoutExpectedChangeIsIgnoredByTheConcurrentCheck() {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification replicaA = TrialServer.gate().gate(refund(runs), ToolPolicy.defaults());
    SyncToolSpecification replicaB = TrialServer.gate().gate(refund(runs), ToolPolicy.defaults());
    AtomicInteger next = new AtomicInteger();
    SyncToolSpecification balanced =
        new SyncToolSpecification(
            replicaA.tool(),
            (ex, req) ->
                (next.getAndIncrement() % 2 == 0 ? replicaA : replicaB)
                    .callHandler()
                    .apply(ex, req));
    try (McpHarness harness = McpHarness.stdio(List.of(balanced))) {
      RetryCheck check = RetryCheck.of(harness.client(null)).probe("refunds", runs::get);
      AssertionFailedError failure = null;
      try {
        check.assertConcurrentFirstCallsRunOnce(refundCall("k-fresh"));
      } catch (AssertionFailedError e) {
        failure = e;
      }
      assertThat(runs.get()).as("the tool's runs for one intent").isEqualTo(2);
      assertThat(failure)
          .as("the kit's verdict when its probe 'refunds' went from 0 to 2")
          .isNotNull();
    }
  }
}
