package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import dev.mcpgate.testkit.ToolSurvey;
import dev.mcpgate.testkit.junit.GatedToolsTest;
import dev.mcpgate.testkit.junit.McpGateChecks;
import dev.mcpgate.testkit.junit.McpServerUnderTest;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The doc's samples as a user writes them: the survey table of section 1 (one tool of each kind,
 * the key sources the doc names), section 4's class with a non-static field, its report file and
 * its WARNING log, and the client-connection snippets (compiled).
 */
class DocSamplesTrialTest {
  static final Map<String, String> STORIES = new ConcurrentHashMap<>();
  static final List<String> REFUNDS = new CopyOnWriteArrayList<>();
  static final List<String> REPORTS = new CopyOnWriteArrayList<>();
  static final List<String> COMMENTS = new CopyOnWriteArrayList<>();
  static McpSyncClient shared;

  static McpSchema.Tool tool(String name, List<String> props, Boolean readOnly, Boolean idem) {
    Map<String, Object> properties = new java.util.LinkedHashMap<>();
    props.forEach(p -> properties.put(p, Map.of("type", "string")));
    return McpSchema.Tool.builder(
            name, Map.of("type", "object", "properties", properties, "required", props))
        .description(name)
        .annotations(new McpSchema.ToolAnnotations(null, readOnly, null, idem, null, null))
        .build();
  }

  static SyncToolSpecification appending(McpSchema.Tool tool, List<String> into) {
    return new SyncToolSpecification(
        tool,
        (ex, req) -> {
          into.add(String.valueOf(req.arguments()));
          return CallToolResult.builder().addTextContent("done " + UUID.randomUUID()).build();
        });
  }

  static List<SyncToolSpecification> server(boolean withLegacyImport) {
    McpGate gate = TrialServer.gate();
    List<SyncToolSpecification> specs = new ArrayList<>();
    specs.add(
        gate.gate(
            appending(tool("refund_order", List.of("order_id"), null, null), REFUNDS),
            ToolPolicy.defaults()));
    specs.add(
        new SyncToolSpecification(
            tool("publish_story", List.of("slug", "text"), null, true),
            (ex, req) -> {
              STORIES.put(
                  (String) req.arguments().get("slug"), (String) req.arguments().get("text"));
              return CallToolResult.builder().addTextContent("published").build();
            }));
    specs.add(
        gate.gate(
            appending(
                tool("report_reproduction", List.of("story_slug", "reporter"), null, null),
                REPORTS),
            ToolPolicy.builder()
                .keySources(KeySource.NATURAL)
                .naturalKey("story_slug", "reporter")
                .build()));
    specs.add(
        new SyncToolSpecification(
            tool("get_story", List.of("slug"), true, null),
            (ex, req) -> CallToolResult.builder().addTextContent("story").build()));
    specs.add(
        gate.gate(
            appending(tool("post_comment", List.of("text"), null, null), COMMENTS),
            ToolPolicy.builder().keySources(KeySource.META).build()));
    if (withLegacyImport) {
      specs.add(appending(tool("legacy_import", List.of("file"), null, null), new ArrayList<>()));
    }
    return specs;
  }

  @Test
  void theSurveyTableReadsAsTheDocShowsIt() {
    try (McpHarness harness = McpHarness.stdio(server(true))) {
      ToolSurvey survey = ToolSurvey.of(harness.client(null));
      String table = survey.table();
      assertThat(table)
          .containsPattern(
              "refund_order +gated +key: argument idempotency_key or _meta"
                  + " dev.mcpgate/idempotency-key")
          .containsPattern(
              "publish_story +declared safe +idempotentHint=true, not gated: verify it with"
                  + " RetryCheck")
          .containsPattern("report_reproduction +gated +key: natural key \\[story_slug, reporter]")
          .containsPattern("get_story +read-only +readOnlyHint=true")
          .containsPattern("post_comment +gated +key: _meta dev.mcpgate/idempotency-key")
          .containsPattern(
              "legacy_import +NOT GATED +writes \\(not read-only\\) with no idempotency key: a"
                  + " retry may write twice");
      assertThat(survey.notGated())
          .extracting(ToolSurvey.Entry::tool)
          .containsExactly("legacy_import");
    }
  }

  /** Section 4's class: a non-static field ("a field or a method; static or not"). */
  /** Runs only inside this test's launcher, where {@link #shared} is set. */
  static boolean launchedHere() {
    return shared != null;
  }

  @McpGateChecks(concurrentCopies = 4)
  @EnabledIf("dev.mcpgate.testkit.trial.DocSamplesTrialTest#launchedHere")
  static class ShopGateChecks implements GatedToolsTest {
    @McpServerUnderTest McpSyncClient client = shared;

    @Override
    public void configureGateChecks(GateChecks checks) {
      checks
          .tool("publish_story")
          .arguments(token -> Map.of("slug", token, "text", "hello"))
          .probe("stories", () -> Map.copyOf(STORIES));
    }
  }

  static Map<String, String> run(Class<?> testClass) {
    Map<String, String> outcomes = new ConcurrentHashMap<>();
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build(),
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
            });
    return outcomes;
  }

  @Test
  void everyGatedKindPassesWithSchemaMadeArgumentsAndTheReportIsWritten() throws Exception {
    Path report = Path.of("target/mcpgate-checks", ShopGateChecks.class.getName() + ".txt");
    Files.deleteIfExists(report);
    try (McpHarness harness = McpHarness.stdio(server(false))) {
      shared = harness.client(null);
      Map<String, String> outcomes = run(ShopGateChecks.class);
      assertThat(outcomes.get("survey: every write tool is gated or declared safe"))
          .startsWith("SUCCESSFUL");
      for (String tool : List.of("refund_order", "report_reproduction", "post_comment")) {
        assertThat(outcomes.get(tool + ": retry")).as(tool).startsWith("SUCCESSFUL");
        assertThat(outcomes.get(tool + ": concurrent first calls"))
            .as(tool)
            .startsWith("SUCCESSFUL");
        assertThat(outcomes.get(tool + ": arrival order")).as(tool).startsWith("ABORTED");
      }
      assertThat(outcomes.get("publish_story: retry")).startsWith("SUCCESSFUL");
      assertThat(outcomes).doesNotContainKey("get_story: retry");
    } finally {
      shared = null;
    }
    // one run per check: retry (1) + concurrent first calls (1)
    assertThat(REFUNDS).hasSize(2);
    assertThat(REPORTS).hasSize(2);
    assertThat(COMMENTS).hasSize(2);
    assertThat(Files.readString(report))
        .contains("ungated writes: none")
        .containsPattern("post_comment +retry +PASSED");
  }

  @McpGateChecks(requireGatedWrites = false, reportDir = "")
  @EnabledIf("dev.mcpgate.testkit.trial.DocSamplesTrialTest#launchedHere")
  static class LegacyGateChecks implements GatedToolsTest {
    @McpServerUnderTest
    static McpSyncClient client() {
      return shared;
    }

    @Override
    public void configureGateChecks(GateChecks checks) {
      checks.tool("legacy_import").skip("replaced in 2027");
    }
  }

  @Test
  void ungatedWritesAreLoggedAsWarningsAndTheSurveyIsAbortedWhenNotRequired() {
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger log = Logger.getLogger("dev.mcpgate.testkit.junit.McpGateChecksExtension");
    log.addHandler(handler);
    try (McpHarness harness = McpHarness.stdio(server(true))) {
      shared = harness.client(null);
      Map<String, String> outcomes = run(LegacyGateChecks.class);
      assertThat(outcomes.get("survey: every write tool is gated or declared safe"))
          .startsWith("ABORTED")
          .contains("[legacy_import]");
      assertThat(outcomes.get("legacy_import: retry")).startsWith("ABORTED").contains("2027");
    } finally {
      shared = null;
      log.removeHandler(handler);
    }
    assertThat(records)
        .anySatisfy(
            r -> {
              assertThat(r.getLevel()).isEqualTo(Level.WARNING);
              assertThat(java.text.MessageFormat.format(r.getMessage(), r.getParameters()))
                  .contains("legacy_import");
            });
  }

  // Section 4's connection snippets, as printed (compiled, not run: there is no shop-mcp.jar).

  static McpSyncClient connectToTheServer() { // a stdio server, as a process
    McpSyncClient client =
        McpClient.sync(
                new StdioClientTransport(
                    ServerParameters.builder("java").args("-jar", "target/shop-mcp.jar").build(),
                    McpJsonDefaults.getMapper()))
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  static McpSyncClient connectOverHttp(int port) { // a server on Streamable HTTP
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .build();
    client.initialize();
    return client;
  }
}
