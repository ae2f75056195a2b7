package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.RetryCheck;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * docs/testkit.md: "assertSafeToRetry(call): sends the call, sends it again ..., then 8 concurrent
 * copies. Every answer must equal the first"; "Gated tools pass on the gate's replay marks with no
 * probe". Only the retry's replay mark is looked at: the 8 copies are compared by content, not
 * required to be replays. Two replicas with their own in-memory stores behind a least-connections
 * balancer (ties to the first replica): the call and its retry, one at a time, both reach replica A
 * (a replay, with its mark); the concurrent copies spread over A and B, and B runs the refund a
 * second time, answering the same text. The check passes; the refund ran twice.
 */
class RetryCopiesFalseGreenTrialTest {

  @Test
  void aRetryCheckWhoseConcurrentCopiesRanTheToolAgainFails() {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification refund =
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
              TrialServer.sleep(200); // the payment provider
              return CallToolResult.builder()
                  .addTextContent("refunded " + req.arguments().get("amount_cents"))
                  .build();
            });
    SyncToolSpecification replicaA = TrialServer.gate().gate(refund, ToolPolicy.defaults());
    SyncToolSpecification replicaB = TrialServer.gate().gate(refund, ToolPolicy.defaults());
    AtomicInteger inA = new AtomicInteger();
    AtomicInteger inB = new AtomicInteger();
    Object lock = new Object();
    SyncToolSpecification balanced =
        new SyncToolSpecification(
            replicaA.tool(),
            (ex, req) -> {
              boolean toA;
              synchronized (lock) {
                toA = inA.get() <= inB.get();
                (toA ? inA : inB).incrementAndGet();
              }
              try {
                TrialServer.sleep(100); // the network to the replica
                return (toA ? replicaA : replicaB).callHandler().apply(ex, req);
              } finally {
                (toA ? inA : inB).decrementAndGet();
              }
            });
    try (McpHarness harness = McpHarness.stdio(List.of(balanced))) {
      AssertionFailedError failure = null;
      try {
        RetryCheck.of(harness.client(null))
            .assertSafeToRetry(
                new CallToolRequest(
                    "refund_order",
                    Map.of("order_id", "o-1", "amount_cents", 500, "idempotency_key", "key-1")));
      } catch (AssertionFailedError e) {
        failure = e;
      }
      assertThat(runs.get()).as("the refund's runs for one intent").isEqualTo(2);
      assertThat(failure)
          .as("the retry check's verdict on a call whose concurrent copies refunded again")
          .isNotNull();
    }
  }
}
