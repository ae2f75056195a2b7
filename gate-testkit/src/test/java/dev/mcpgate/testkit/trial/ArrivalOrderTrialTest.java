package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.ArrivalOrderCheck;
import dev.mcpgate.testkit.GateChecks;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * docs/testkit.md section 3: "run them in both orders against fresh state; the stored state must be
 * the same". The check ignores what the calls answer: when both calls are refused (a gated tool
 * called without its key) or rejected (an argument the tool does not accept), nothing runs in
 * either order, the two end states are the fresh state twice, and a last-write-wins merge rule,
 * whose end state does depend on the arrival order, passes.
 */
class ArrivalOrderTrialTest {
  /** session id to the stop time stored; last write wins, so the order decides. */
  private final Map<String, String> stoppedAt = new ConcurrentHashMap<>();

  private final AtomicInteger sessions = new AtomicInteger();

  private SyncToolSpecification stopSession() {
    return new SyncToolSpecification(
        TrialServer.writeTool(
            "stop_session",
            Map.of("session_id", Map.of("type", "string"), "at", Map.of("type", "string"))),
        (ex, req) -> {
          String at = (String) req.arguments().get("at");
          try {
            Instant.parse(at);
          } catch (RuntimeException e) {
            return CallToolResult.builder()
                .addTextContent("'at' must be an ISO-8601 instant, was " + at)
                .isError(true)
                .build();
          }
          stoppedAt.put((String) req.arguments().get("session_id"), at); // last write wins
          return CallToolResult.builder().addTextContent("stopped").build();
        });
  }

  private String startNewSession() {
    String id = "s-" + sessions.incrementAndGet();
    stoppedAt.put(id, "running");
    return id;
  }

  private static CallToolRequest stop(String id, String at) {
    return new CallToolRequest("stop_session", Map.of("session_id", id, "at", at));
  }

  private static CallToolRequest stop(String id, String at, String key) {
    return new CallToolRequest(
        "stop_session", Map.of("session_id", id, "at", at, "idempotency_key", key));
  }

  /** The control: with its key, the gated last-write-wins tool fails the check, as it should. */
  @Test
  void aLastWriteWinsStopFailsTheCheckWhenItsCallsRun() {
    SyncToolSpecification gated = TrialServer.gate().gate(stopSession(), ToolPolicy.defaults());
    try (McpHarness harness = McpHarness.stdio(List.of(gated))) {
      AtomicInteger keys = new AtomicInteger();
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  ArrivalOrderCheck.assertSameEndState(
                      harness.client(null),
                      this::startNewSession,
                      id -> stop(id, "2026-11-30T14:05:00Z", "k-" + keys.incrementAndGet()),
                      id -> stop(id, "2026-11-30T14:20:00Z", "k-" + keys.incrementAndGet()),
                      stoppedAt::get))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("stop_session: the end state depends on the arrival order");
    }
  }

  /**
   * The same tool and merge rule, scenario written as in section 4 of the doc ({@code id ->
   * stop(id, "14:05")}) for a gated tool, whose key the kit says it puts "where the gate reads it":
   * the kit adds no key to a scenario's calls, all four are refused with idempotency_key_required,
   * and the check passes.
   */
  @Test
  void aLastWriteWinsStopWhoseCallsAreRefusedDoesNotPassTheCheck() {
    SyncToolSpecification gated = TrialServer.gate().gate(stopSession(), ToolPolicy.defaults());
    try (McpHarness harness = McpHarness.stdio(List.of(gated))) {
      AssertionFailedError failure = null;
      try {
        ArrivalOrderCheck.assertSameEndState(
            harness.client(null),
            this::startNewSession,
            id -> stop(id, "2026-11-30T14:05:00Z"),
            id -> stop(id, "2026-11-30T14:20:00Z"),
            stoppedAt::get);
      } catch (AssertionFailedError e) {
        failure = e;
      }
      assertThat(stoppedAt).as("no stop was ever stored").containsOnlyKeys("s-1", "s-2");
      assertThat(stoppedAt.values()).containsOnly("running");
      assertThat(failure)
          .as("the arrival-order verdict when every call was refused and nothing ran")
          .isNotNull();
    }
  }

  /** Through GateChecks (what @McpGateChecks runs), with the doc's short times "14:05". */
  @Test
  void anArrivalOrderScenarioWhoseCallsAllFailDoesNotPassInGateChecks() {
    SyncToolSpecification ungated = stopSession();
    try (McpHarness harness = McpHarness.stdio(List.of(ungated))) {
      GateChecks checks = GateChecks.of(harness.client(null));
      checks
          .tool("stop_session")
          .arrivalOrder(
              this::startNewSession,
              id -> stop(id, "14:05"),
              id -> stop(id, "14:20"),
              stoppedAt::get);
      GateChecks.Planned arrival =
          checks.plan().stream()
              .filter(p -> p.check().equals(GateChecks.ARRIVAL_ORDER))
              .findFirst()
              .orElseThrow();
      AssertionError failure = null;
      try {
        arrival.run().run();
      } catch (AssertionError e) {
        failure = e;
      }
      assertThat(stoppedAt.values()).as("no stop was ever stored").containsOnly("running");
      assertThat(failure)
          .as("the arrival-order verdict when every call answered isError and nothing ran")
          .isNotNull();
    }
  }
}
