package dev.mcpgate.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * {@link McpGateChecks} run by a real JUnit launcher on a real server, with a tool that is safe
 * and, for each check, a tool that is not: each check fails on its unsafe tool, naming it.
 */
class McpGateChecksExtensionTest {
  static final AtomicInteger CHARGES = new AtomicInteger();
  static final AtomicInteger VISITS = new AtomicInteger();
  static final Map<String, Integer> CLOSED = new ConcurrentHashMap<>();
  static McpSyncClient client;

  static McpSchema.Tool tool(String name, Boolean idempotentHint, Boolean readOnly) {
    return McpSchema.Tool.builder(
            name,
            Map.of(
                "type",
                "object",
                "properties",
                Map.of("amount", Map.of("type", "integer"), "id", Map.of("type", "string")),
                "required",
                List.of("amount")))
        .description(name)
        .annotations(
            new McpSchema.ToolAnnotations(null, readOnly, null, idempotentHint, null, null))
        .build();
  }

  static SyncToolSpecification charge(String name) {
    return new SyncToolSpecification(
        tool(name, null, null),
        (ex, req) -> {
          int n = CHARGES.incrementAndGet();
          return CallToolResult.builder()
              .addTextContent("charge " + n + " " + UUID.randomUUID())
              .build();
        });
  }

  static List<SyncToolSpecification> server() {
    McpGate gate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("local"))
            .build();
    SyncToolSpecification countVisit =
        new SyncToolSpecification(
            tool("count_visit", null, null),
            (ex, req) -> {
              VISITS.incrementAndGet();
              return CallToolResult.builder().addTextContent("ok").build();
            });
    SyncToolSpecification close =
        new SyncToolSpecification(
            tool("close", true, null),
            (ex, req) -> {
              CLOSED.put(
                  (String) req.arguments().get("id"),
                  ((Number) req.arguments().get("amount")).intValue()); // last write wins
              return CallToolResult.builder().addTextContent("ok").build();
            });
    SyncToolSpecification read =
        new SyncToolSpecification(
            tool("get_balance", null, true),
            (ex, req) -> CallToolResult.builder().addTextContent("" + CHARGES.get()).build());
    return List.of(
        gate.gate(charge("charge"), ToolPolicy.defaults()),
        charge("charge_ungated"),
        countVisit,
        close,
        read);
  }

  /** A user's test class: one annotation, one interface, the server, a few tool settings. */
  @McpGateChecks(concurrentCopies = 4, reportDir = "target/mcpgate-checks-test")
  static class ServerChecks implements GatedToolsTest {
    @McpServerUnderTest
    static McpSyncClient server() {
      return client;
    }

    @Override
    public void configureGateChecks(GateChecks checks) {
      checks.tool("count_visit").probe("visits", VISITS::get).expectFirstCallChange("visits", 1);
      AtomicInteger ids = new AtomicInteger();
      checks
          .tool("close")
          .probe("closed records", CLOSED::size)
          .expectFirstCallChange("closed records", 1)
          .arguments(token -> Map.of("id", token, "amount", 5))
          .arrivalOrder(
              () -> "r" + ids.incrementAndGet(),
              id -> new CallToolRequest("close", Map.of("id", id, "amount", 5)),
              id -> new CallToolRequest("close", Map.of("id", id, "amount", 9)),
              CLOSED::get);
    }
  }

  /**
   * Runs a test class with the JUnit launcher: each test (and failed container) by display name, to
   * its outcome and message.
   */
  static Map<String, String> run(Class<?> testClass) {
    Map<String, String> outcomes = new ConcurrentHashMap<>();
    TestExecutionListener listener =
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest() || result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
              outcomes.put(
                  id.getDisplayName(),
                  result.getStatus()
                      + ": "
                      + result.getThrowable().map(Throwable::getMessage).orElse(""));
            }
          }
        };
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build(),
            listener);
    return outcomes;
  }

  @Test
  void eachCheckFailsOnTheToolThatIsNotSafeAndPassesOnTheGatedOne() throws Exception {
    try (McpHarness harness = McpHarness.stdio(server())) {
      client = harness.client(null);
      Map<String, String> outcomes = run(ServerChecks.class);

      assertThat(outcomes.get("survey: every write tool is gated or declared safe"))
          .startsWith("FAILED")
          .contains("[charge_ungated, count_visit]");

      assertThat(outcomes.get("charge: retry")).startsWith("SUCCESSFUL");
      assertThat(outcomes.get("charge: concurrent first calls")).startsWith("SUCCESSFUL");
      assertThat(outcomes.get("charge: arrival order"))
          .startsWith("ABORTED")
          .contains("arrivalOrder(");

      assertThat(outcomes.get("charge_ungated: retry"))
          .startsWith("FAILED")
          .contains("charge_ungated: the retry returned a different result")
          .contains("ran again");
      assertThat(outcomes.get("charge_ungated: concurrent first calls"))
          .startsWith("FAILED")
          .contains("charge_ungated ran more than once");

      assertThat(outcomes.get("count_visit: retry"))
          .startsWith("FAILED")
          .contains("count_visit wrote twice: probe 'visits'");
      assertThat(outcomes.get("count_visit: concurrent first calls"))
          .startsWith("FAILED")
          .contains("count_visit")
          .contains("it ran more than once");

      assertThat(outcomes.get("close: retry")).startsWith("SUCCESSFUL");
      assertThat(outcomes.get("close: concurrent first calls")).startsWith("SUCCESSFUL");
      assertThat(outcomes.get("close: arrival order"))
          .startsWith("FAILED")
          .contains("close: the end state depends on the arrival order");

      assertThat(outcomes).doesNotContainKey("get_balance: retry");
    } finally {
      client = null;
    }

    String report =
        Files.readString(
            Path.of("target/mcpgate-checks-test", ServerChecks.class.getName() + ".txt"));
    assertThat(report)
        .contains("ungated writes (a retry may write twice): [charge_ungated," + " count_visit]")
        .contains("NOT GATED")
        .containsPattern("charge_ungated +retry +FAILED");
  }

  @McpGateChecks
  static class NoServer implements GatedToolsTest {}

  @Test
  void aClassWithoutAServerSaysHowToGiveOne() {
    assertThat(run(NoServer.class).get("MCP Gate checks"))
        .startsWith("FAILED")
        .contains("has no server under test")
        .contains("@McpServerUnderTest");
  }

  @Test
  void runAllWithoutJUnitNamesEveryFailure() {
    try (McpHarness harness = McpHarness.stdio(server())) {
      GateChecks checks = GateChecks.of(harness.client(null)).concurrentCopies(3);
      checks.tool("close").skip("checked elsewhere");
      checks.tool("count_visit").skip("checked elsewhere");
      org.assertj.core.api.Assertions.assertThatThrownBy(checks::runAll)
          .hasMessageContaining("charge_ungated (retry)")
          .hasMessageContaining("charge_ungated (concurrent first calls)")
          .hasMessageNotContaining("charge (retry)");
      assertThat(checks.ungatedWrites()).containsExactly("charge_ungated", "count_visit");
    }
  }
}
