package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import dev.mcpgate.testkit.RetryCheck;
import dev.mcpgate.testkit.ToolSurvey;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** Review of the test kit: checks that pass a tool that writes twice, or fail a correct one. */
class TestkitTruthReviewTest {

  /**
   * K1: docs/testkit.md says a declared-safe write tool "still get[s] the checks, which need a
   * probe to pass", and "a retry without [the replay mark] means the tool is not gated; then a
   * probe must see the first call's effect". The kit decides "gated" from the replay mark on the
   * retry's result alone, never from the tool's listing. A declared-safe tool (idempotentHint=true,
   * no gate of its own) that sends a notification and then forwards to a gated tool, returning its
   * result (with its _meta), carries the inner tool's replay mark: every check passes with no
   * probe, while each call sends the mail again.
   */
  @Test
  void aDeclaredSafeToolThatForwardsAGatedToolsReplayMarkIsNotPassedWithoutAProbe() {
    AtomicInteger refunds = new AtomicInteger();
    AtomicInteger mails = new AtomicInteger();
    SyncToolSpecification refund = gatedRefund(refunds);
    SyncToolSpecification refundAndNotify =
        new SyncToolSpecification(
            TrialServer.tool(
                "refund_and_notify", Map.of("order_id", Map.of("type", "string")), true),
            (ex, req) -> {
              Object order = req.arguments().get("order_id");
              mails.incrementAndGet(); // the customer's mail: not gated
              return refund
                  .callHandler()
                  .apply(
                      ex,
                      new CallToolRequest(
                          "refund_order",
                          Map.of("order_id", order, "idempotency_key", "refund-" + order)));
            });
    try (McpHarness harness = McpHarness.stdio(List.of(refund, refundAndNotify))) {
      McpSyncClient client = harness.client(null);
      assertThat(ToolSurvey.of(client).declaredSafe())
          .extracting(ToolSurvey.Entry::tool)
          .containsExactly("refund_and_notify");

      GateChecks checks = GateChecks.of(client);
      checks.tool("refund_and_notify").arguments(token -> Map.of("order_id", token));
      checks.tool("refund_order").skip("checked elsewhere");
      AssertionError failure = null;
      try {
        checks.runAll();
      } catch (AssertionError e) {
        failure = e;
      }
      int mailsSent = mails.get();
      int refundsRun = refunds.get();
      assertThat(failure)
          .as(
              "refund_and_notify has no gate and no probe, and sent %s mails for %s refunds"
                  + " (2 intents: one retried with 8 copies, one sent as 8 concurrent copies);"
                  + " the kit passed it on a replay mark its tool's listing never promised:%n%s",
              mailsSent, refundsRun, checks.report())
          .isNotNull();
    }
  }

  /**
   * A write tool whose schema has an {@code idempotency_key} that nothing reads: the listing shows
   * a key, not a gate. The survey must not call it gated (which needs no check), only declared safe
   * (which the checks verify with a probe).
   */
  @Test
  void aKeyInTheSchemaThatNothingReadsIsNotListedAsGated() {
    AtomicInteger mails = new AtomicInteger();
    SyncToolSpecification mail =
        new SyncToolSpecification(
            TrialServer.tool(
                "send_mail",
                Map.of(
                    "to",
                    Map.of("type", "string"),
                    ToolPolicy.DEFAULT_KEY_ARGUMENT,
                    Map.of("type", "string")),
                null),
            (ex, req) -> {
              mails.incrementAndGet(); // the key is never read: a retry mails again
              return CallToolResult.builder().addTextContent("sent").build();
            });
    try (McpHarness harness = McpHarness.stdio(List.of(mail))) {
      ToolSurvey survey = ToolSurvey.of(harness.client(null));
      assertThat(survey.entries())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.kind()).isEqualTo(ToolSurvey.Kind.DECLARED_SAFE);
                assertThat(e.detail()).contains("not gated by MCP Gate", "RetryCheck");
              });
    }
  }

  /**
   * K2: the design names "a delete that fails the second time" as safe by construction, and
   * assertSafeToRetry passes it when a probe shows the effect once. The concurrent-first-calls
   * check (which @McpGateChecks runs on every write tool) fails the same correct tool, saying it
   * "ran more than once", though its probe shows it ran once: one copy deleted the note, the others
   * answered "no note".
   */
  @Test
  void theConcurrentCheckDoesNotSayADeleteThatRanOnceRanMoreThanOnce() {
    Set<String> notes = ConcurrentHashMap.newKeySet();
    SyncToolSpecification delete =
        new SyncToolSpecification(
            TrialServer.tool("delete_note", Map.of("note_id", Map.of("type", "string")), true),
            (ex, req) -> {
              String id = (String) req.arguments().get("note_id");
              if (!notes.remove(id)) {
                return CallToolResult.builder()
                    .addTextContent("no note " + id)
                    .isError(true)
                    .build();
              }
              return CallToolResult.builder().addTextContent("deleted " + id).build();
            });
    try (McpHarness harness = McpHarness.stdio(List.of(delete))) {
      McpSyncClient client = harness.client(null);
      notes.add("n-1");
      int before = notes.size();
      String said = null;
      try {
        RetryCheck.of(client)
            .probe("notes", notes::size)
            .expectFirstCallChange("notes", -1)
            .assertConcurrentFirstCallsRunOnce(
                new CallToolRequest("delete_note", Map.of("note_id", "n-1")));
      } catch (AssertionFailedError e) {
        said = e.getMessage();
      }
      assertThat(before - notes.size()).as("the delete ran once").isEqualTo(1);
      assertThat(said)
          .as("the kit's verdict on a delete that took effect exactly once (probe: -1)")
          .isNull();
    }
  }

  /**
   * K1, after its fix: the kit trusts a replay mark only from a tool listed with the gate's _meta,
   * but the listing is the gate's tool definition, which a handler wrapper keeps. A server that
   * decorates its gated specifications (an interceptor that mails, audits or charges, then calls
   * the gated handler) lists the same definition and returns the gate's replay mark on every retry
   * while its own work runs again: every check passes with no probe.
   *
   * <p>Kept as a known limit of a kit that sees only answers, documented in docs/testkit.md ("Give
   * write tools a probe of every effect they have, gated or not"). This test pins it: it fails when
   * the limit is lifted, and the doc is then to be changed with it.
   */
  @Test
  void aGatedDefinitionAroundAHandlerThatMailsFirstPassesWithoutAProbeAKnownLimit() {
    AtomicInteger refunds = new AtomicInteger();
    AtomicInteger mails = new AtomicInteger();
    SyncToolSpecification gated = gatedRefund(refunds);
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

  /** refund_order gated by MCP Gate, counting its runs in {@code refunds}. */
  private static SyncToolSpecification gatedRefund(AtomicInteger refunds) {
    return TrialServer.gate()
        .gate(
            new SyncToolSpecification(
                TrialServer.writeTool("refund_order", Map.of("order_id", Map.of("type", "string"))),
                (ex, req) -> {
                  refunds.incrementAndGet();
                  return CallToolResult.builder()
                      .addTextContent("refunded " + req.arguments().get("order_id"))
                      .build();
                }),
            ToolPolicy.defaults());
  }
}
