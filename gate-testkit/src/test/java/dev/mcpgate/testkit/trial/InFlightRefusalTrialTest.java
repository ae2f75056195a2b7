package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.InFlight;
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
class InFlightRefusalTrialTest {

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
   * ToolPolicy.inFlight(REFUSE) is SEP-3182's behaviour and a documented per-tool choice: a
   * duplicate that arrives while the first attempt runs is refused at once with {@code
   * idempotency_key_in_progress}; the tool runs exactly once. The kit fails such a tool: "a
   * concurrent first call was refused", although it ran once and nothing is wrong.
   */
  @Test
  void aGatedToolThatRefusesDuplicatesInFlightPassesTheConcurrentCheck() {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification gated =
        TrialServer.gate()
            .gate(refund(runs), ToolPolicy.builder().inFlight(InFlight.REFUSE).build());
    try (McpHarness harness = McpHarness.stdio(List.of(gated))) {
      RetryCheck check =
          RetryCheck.of(harness.client(null))
              .probe("refunds", runs::get)
              .expectFirstCallChange("refunds", 1);
      try {
        check.assertConcurrentFirstCallsRunOnce(refundCall("k-fresh"));
      } catch (AssertionFailedError e) {
        throw new AssertionError(
            "the kit failed a gated tool that ran "
                + runs.get()
                + " time(s) for 8 concurrent first calls, saying: "
                + e.getMessage(),
            e);
      }
      assertThat(runs).hasValue(1);
    }
  }

  /**
   * The same for a tool slower than the gate's in-flight wait (5 s by default; here 200 ms): the
   * duplicates wait, then are refused with retry-after; the tool ran once.
   */
  @Test
  void aGatedToolSlowerThanTheInFlightWaitPassesTheConcurrentCheck() {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification gated =
        TrialServer.gate(
                dev.mcpgate.core.GatePolicy.builder()
                    .inFlightWait(java.time.Duration.ofMillis(100))
                    .build())
            .gate(refund(runs), ToolPolicy.defaults());
    try (McpHarness harness = McpHarness.stdio(List.of(gated))) {
      RetryCheck check =
          RetryCheck.of(harness.client(null))
              .probe("refunds", runs::get)
              .expectFirstCallChange("refunds", 1);
      try {
        check.assertConcurrentFirstCallsRunOnce(refundCall("k-slow"));
      } catch (AssertionFailedError e) {
        throw new AssertionError(
            "the kit failed a gated tool that ran "
                + runs.get()
                + " time(s) for 8 concurrent first calls, saying: "
                + e.getMessage(),
            e);
      }
      assertThat(runs).hasValue(1);
    }
  }
}
