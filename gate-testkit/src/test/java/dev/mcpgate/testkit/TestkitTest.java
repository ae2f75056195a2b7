package dev.mcpgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** The kit against a real server with a gated and an ungated copy of the same write tool. */
class TestkitTest {
  private final AtomicInteger charges = new AtomicInteger();
  private final Map<String, String> balances = new ConcurrentHashMap<>();

  private McpSchema.Tool tool(String name, Boolean idempotentHint, Boolean readOnly) {
    return McpSchema.Tool.builder(
            name,
            Map.of("type", "object", "properties", Map.of("amount", Map.of("type", "integer"))))
        .description("Charge an amount.")
        .annotations(
            new McpSchema.ToolAnnotations(null, readOnly, null, idempotentHint, null, null))
        .build();
  }

  private SyncToolSpecification charge(String name) {
    return new SyncToolSpecification(
        tool(name, null, null),
        (ex, req) -> {
          int n = charges.incrementAndGet();
          return CallToolResult.builder()
              .addTextContent("charge " + n + " " + UUID.randomUUID())
              .build();
        });
  }

  private List<SyncToolSpecification> server() {
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("local"))
            .build();
    SyncToolSpecification setBalance =
        new SyncToolSpecification(
            tool("set_balance", true, null),
            (ex, req) -> {
              balances.put("acct", String.valueOf(req.arguments().get("amount")));
              return CallToolResult.builder().addTextContent("set").build();
            });
    SyncToolSpecification read =
        new SyncToolSpecification(
            tool("get_balance", null, true),
            (ex, req) -> CallToolResult.builder().addTextContent(balances.toString()).build());
    return List.of(
        mcpGate.gate(charge("charge"), ToolPolicy.defaults()),
        charge("charge_ungated"),
        setBalance,
        read);
  }

  private static CallToolRequest call(String tool, String key, int amount) {
    return new CallToolRequest(
        tool,
        key == null ? Map.of("amount", amount) : Map.of("amount", amount, "idempotency_key", key));
  }

  @Test
  void surveyListsEachKindAndTheAssertionNamesTheUngatedTool() {
    try (McpHarness harness = McpHarness.stdio(server())) {
      ToolSurvey survey = ToolSurvey.of(harness.client(null));

      assertThat(survey.entries())
          .extracting(ToolSurvey.Entry::tool, ToolSurvey.Entry::kind)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("charge", ToolSurvey.Kind.GATED),
              org.assertj.core.groups.Tuple.tuple("charge_ungated", ToolSurvey.Kind.NOT_GATED),
              org.assertj.core.groups.Tuple.tuple("set_balance", ToolSurvey.Kind.DECLARED_SAFE),
              org.assertj.core.groups.Tuple.tuple("get_balance", ToolSurvey.Kind.READ_ONLY));
      assertThat(survey.table())
          .contains("NOT GATED")
          .contains("declared safe")
          .contains("argument idempotency_key");
      assertThatThrownBy(survey::assertAllWriteToolsGated)
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("[charge_ungated]");
    }
  }

  @Test
  void surveyOfSpecificationsAgreesWithTheClientsView() {
    ToolSurvey fromSpecs = ToolSurvey.ofSpecifications(server());
    assertThat(fromSpecs.notGated())
        .extracting(ToolSurvey.Entry::tool)
        .containsExactly("charge_ungated");
    assertThat(fromSpecs.declaredSafe())
        .extracting(ToolSurvey.Entry::tool)
        .containsExactly("set_balance");
  }

  @Test
  void aGatedToolPassesEveryRetryAssertion() {
    try (McpHarness harness = McpHarness.stdio(server())) {
      RetryCheck.of(harness.client(null))
          .probe("charges", charges::get)
          .expectFirstCallChange("charges", 1)
          .assertSafeToRetry(call("charge", "k-1", 5))
          .assertConcurrentFirstCallsRunOnce(call("charge", "k-2", 5))
          .assertConflictRefused(call("charge", "k-1", 5), call("charge", "k-1", 6));
    }
    assertThat(charges).hasValue(2);
  }

  @Test
  void theKitReportsAnUngatedToolThatWritesTwice() {
    try (McpHarness harness = McpHarness.stdio(server())) {
      RetryCheck check = RetryCheck.of(harness.client(null)).probe("charges", charges::get);

      assertThatThrownBy(() -> check.assertSafeToRetry(call("charge_ungated", "k-1", 5)))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("charge_ungated")
          .hasMessageContaining("ran again");
      assertThatThrownBy(
              () ->
                  check.assertConflictRefused(
                      call("charge_ungated", "k-9", 5), call("charge_ungated", "k-9", 6)))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("not refused as a conflict");
    }
  }

  @Test
  void anUngatedCounterThatAnswersOkFailsTheKitForWantOfEvidence() {
    AtomicInteger counted = new AtomicInteger();
    SyncToolSpecification counter =
        new SyncToolSpecification(
            tool("count_visit", true, null),
            (ex, req) -> {
              counted.incrementAndGet();
              return CallToolResult.builder().addTextContent("ok").build();
            });
    try (McpHarness harness = McpHarness.stdio(List.of(counter))) {
      McpSyncClient client = harness.client(null);

      assertThatThrownBy(
              () -> RetryCheck.of(client).assertSafeToRetry(call("count_visit", null, 1)))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("count_visit")
          .hasMessageContaining("not evidence")
          .hasMessageContaining(".probe(");
      assertThatThrownBy(
              () ->
                  RetryCheck.of(client)
                      .assertConcurrentFirstCallsRunOnce(call("count_visit", null, 2)))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("not evidence");
      assertThatThrownBy(
              () ->
                  RetryCheck.of(client)
                      .probe("unrelated", () -> 7)
                      .assertSafeToRetry(call("count_visit", null, 3)))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("do not watch");
      assertThatThrownBy(
              () ->
                  RetryCheck.of(client)
                      .probe("visits", counted::get)
                      .assertSafeToRetry(call("count_visit", null, 4)))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("wrote twice");
    }
  }

  @Test
  void aDeclaredSafeReplaceIsVerifiedByTheProbe() {
    try (McpHarness harness = McpHarness.stdio(server())) {
      RetryCheck.of(harness.client(null))
          .probe("balances", () -> Map.copyOf(balances))
          .assertSafeToRetry(call("set_balance", null, 42));
    }
    assertThat(balances).containsEntry("acct", "42");
  }

  @Test
  void arrivalOrderCheckComparesBothOrders() {
    Map<String, List<Integer>> records = new ConcurrentHashMap<>();
    SyncToolSpecification appendLast =
        new SyncToolSpecification(
            tool("close", true, null),
            (ex, req) -> {
              String id = (String) req.arguments().get("id");
              records.merge(
                  id,
                  List.of(((Number) req.arguments().get("amount")).intValue()),
                  (a, b) -> List.of(b.get(0))); // last write wins: order-dependent
              return CallToolResult.builder().addTextContent("ok").build();
            });
    SyncToolSpecification minWins =
        new SyncToolSpecification(
            tool("close_min", true, null),
            (ex, req) -> {
              String id = (String) req.arguments().get("id");
              records.merge(
                  id,
                  List.of(((Number) req.arguments().get("amount")).intValue()),
                  (a, b) -> List.of(Math.min(a.get(0), b.get(0)))); // order-independent
              return CallToolResult.builder().addTextContent("ok").build();
            });
    try (McpHarness harness = McpHarness.stdio(List.of(appendLast, minWins))) {
      McpSyncClient client = harness.client(null);
      AtomicInteger ids = new AtomicInteger();

      ArrivalOrderCheck.assertSameEndState(
          client,
          () -> "r" + ids.incrementAndGet(),
          id -> new CallToolRequest("close_min", Map.of("id", id, "amount", 5)),
          id -> new CallToolRequest("close_min", Map.of("id", id, "amount", 9)),
          records::get);
      assertThatThrownBy(
              () ->
                  ArrivalOrderCheck.assertSameEndState(
                      client,
                      () -> "r" + ids.incrementAndGet(),
                      id -> new CallToolRequest("close", Map.of("id", id, "amount", 5)),
                      id -> new CallToolRequest("close", Map.of("id", id, "amount", 9)),
                      records::get))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("close: the end state depends");
    }
  }

  @Test
  void gateChecksGiveAGatedToolsScenarioCallsAKey() {
    Map<String, Integer> closed = new ConcurrentHashMap<>();
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("local"))
            .build();
    SyncToolSpecification close =
        new SyncToolSpecification(
            tool("close", null, null),
            (ex, req) -> {
              closed.put(
                  (String) req.arguments().get("id"),
                  ((Number) req.arguments().get("amount")).intValue()); // last write wins
              return CallToolResult.builder().addTextContent("ok").build();
            });
    try (McpHarness harness =
        McpHarness.stdio(List.of(mcpGate.gate(close, ToolPolicy.defaults())))) {
      GateChecks checks = GateChecks.of(harness.client(null));
      AtomicInteger ids = new AtomicInteger();
      checks
          .tool("close")
          .arrivalOrder(
              () -> "r" + ids.incrementAndGet(),
              id -> new CallToolRequest("close", Map.of("id", id, "amount", 5)),
              id -> new CallToolRequest("close", Map.of("id", id, "amount", 9)),
              closed::get);
      GateChecks.Planned arrival =
          checks.plan().stream()
              .filter(p -> p.check().equals(GateChecks.ARRIVAL_ORDER))
              .findFirst()
              .orElseThrow();
      assertThatThrownBy(() -> arrival.run().run())
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining("close: the end state depends on the arrival order");
    }
  }
}
