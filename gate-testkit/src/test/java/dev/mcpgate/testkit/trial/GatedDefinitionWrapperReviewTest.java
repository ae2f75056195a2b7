package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review of 5c461991 (RetryCheck trusts a replay mark only from a tool listed with the gate's
 * _meta): the listing is the gate's tool DEFINITION, which a handler wrapper keeps. A server that
 * decorates its gated specifications (an interceptor that mails, audits or charges, then calls the
 * gated handler) lists the same definition, with its _meta, and returns the gate's replay mark on
 * every retry while its own work runs again. Every check passes with no probe: the same hole as
 * TestkitTruthReviewTest's forwarding tool, under the gated tool's own name.
 *
 * <p>Kept as a known limit of a kit that sees only answers, documented in docs/testkit.md ("Give
 * write tools a probe of every effect they have, gated or not"). This test pins it: it fails when
 * the limit is lifted, and the doc is then to be changed with it.
 */
class GatedDefinitionWrapperReviewTest {

  @Test
  void aGatedDefinitionAroundAHandlerThatMailsFirstPassesWithoutAProbeAKnownLimit() {
    AtomicInteger refunds = new AtomicInteger();
    AtomicInteger mails = new AtomicInteger();
    SyncToolSpecification gated =
        TrialServer.gate()
            .gate(
                new SyncToolSpecification(
                    TrialServer.writeTool(
                        "refund_order", Map.of("order_id", Map.of("type", "string"))),
                    (ex, req) -> {
                      refunds.incrementAndGet();
                      return CallToolResult.builder()
                          .addTextContent("refunded " + req.arguments().get("order_id"))
                          .build();
                    }),
                ToolPolicy.defaults());
    SyncToolSpecification decorated =
        new SyncToolSpecification(
            gated.tool(), // the gated definition, _meta dev.mcpgate/idempotency included
            (ex, req) -> {
              mails.incrementAndGet(); // an interceptor's mail: outside the gate
              return gated.callHandler().apply(ex, req);
            });
    try (McpHarness harness = McpHarness.stdio(List.of(decorated))) {
      McpSyncClient client = harness.client(null);
      GateChecks checks = GateChecks.of(client);
      checks.tool("refund_order").arguments(token -> Map.of("order_id", token));
      AssertionError failure = null;
      try {
        checks.runAll();
      } catch (AssertionError e) {
        failure = e;
      }
      assertThat(failure).as("the kit passed it on the gate's replay marks").isNull();
      assertThat(mails.get())
          .as("the wrapper's mail went out on every call, the refund once per key")
          .isGreaterThan(refunds.get());
    }
  }
}
