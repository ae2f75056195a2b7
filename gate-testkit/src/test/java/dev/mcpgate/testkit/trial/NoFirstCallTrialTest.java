package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import dev.mcpgate.testkit.RetryCheck;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/testkit.md: "assertConcurrentFirstCallsRunOnce(freshCall): 8 concurrent copies of a call
 * never sent before get one answer"; "Gated tools pass on the gate's replay marks with no probe".
 * When the call was sent before, all 8 answers are replays of the old result: nothing runs, no
 * first call is tested, and the check passes. Section 4's own sample gives {@code arguments(token
 * -> Map.of("order_id", "o-1", "amount_cents", 500))}, which ignores the token: for a tool keyed by
 * a natural key (order_id), every check then sends the retry check's call again.
 */
class NoFirstCallTrialTest {

  private static final CallToolRequest CALL =
      new CallToolRequest(
          "refund_order",
          Map.of("order_id", "o-1", "amount_cents", 500, "idempotency_key", "key-1"));

  private static SyncToolSpecification refund(AtomicInteger runs, ToolPolicy policy) {
    return TrialServer.gate()
        .gate(
            new SyncToolSpecification(
                TrialServer.writeTool(
                    "refund_order",
                    Map.of(
                        "order_id",
                        Map.of("type", "string"),
                        "amount_cents",
                        Map.of("type", "integer"))),
                (ex, req) -> {
                  runs.incrementAndGet();
                  return CallToolResult.builder().addTextContent("refunded").build();
                }),
            policy);
  }

  @Test
  void concurrentFirstCallsOfACallSentBeforeDoNotPass() {
    AtomicInteger runs = new AtomicInteger();
    try (McpHarness harness = McpHarness.stdio(List.of(refund(runs, ToolPolicy.defaults())))) {
      RetryCheck check = RetryCheck.of(harness.client(null)).assertSafeToRetry(CALL);
      int before = runs.get();
      AssertionError failure = null;
      try {
        check.assertConcurrentFirstCallsRunOnce(CALL); // not a fresh call: a user's slip
      } catch (AssertionError e) {
        failure = e;
      }
      assertThat(runs.get() - before).as("runs during the concurrent-first-calls check").isZero();
      assertThat(failure)
          .as("the verdict of a concurrent-first-calls check in which no first call was made")
          .isNotNull();
    }
  }

  @Test
  void theDocsArgumentsSampleOnANaturalKeyToolTestsNoConcurrentFirstCall() {
    AtomicInteger runs = new AtomicInteger();
    ToolPolicy byOrder =
        ToolPolicy.builder().keySources(KeySource.NATURAL).naturalKey("order_id").build();
    try (McpHarness harness = McpHarness.stdio(List.of(refund(runs, byOrder)))) {
      GateChecks checks = GateChecks.of(harness.client(null));
      checks
          .tool("refund_order")
          .arguments(token -> Map.of("order_id", "o-1", "amount_cents", 500)); // as in the doc
      List<GateChecks.Planned> plan = checks.plan();
      plan.get(0).run().run(); // retry
      int before = runs.get();
      AssertionError failure = null;
      try {
        plan.get(1).run().run(); // concurrent first calls
      } catch (AssertionError e) {
        failure = e;
      }
      assertThat(plan.get(1).check()).isEqualTo(GateChecks.CONCURRENT);
      assertThat(runs.get() - before).as("runs during the concurrent-first-calls check").isZero();
      assertThat(failure)
          .as("the verdict of a concurrent-first-calls check in which no first call was made")
          .isNotNull();
    }
  }

  /** The same slip in the retry check: its first call replays, so nothing it sends runs. */
  @Test
  void aRetryCheckOfACallSentBeforeDoesNotPass() {
    AtomicInteger runs = new AtomicInteger();
    try (McpHarness harness = McpHarness.stdio(List.of(refund(runs, ToolPolicy.defaults())))) {
      RetryCheck check = RetryCheck.of(harness.client(null)).assertSafeToRetry(CALL);
      int before = runs.get();

      assertThatThrownBy(() -> check.assertSafeToRetry(CALL))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("the first call was a replay")
          .hasMessageContaining("no first call was tested");
      assertThat(runs.get() - before).as("runs during the second retry check").isZero();
    }
  }
}
