package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the MCP 2026-07-28 draft changes for a retry, sent as raw JSON-RPC through a real SDK server
 * transport (stdio): a retry comes with a new JSON-RPC id, on a new connection, with no session; a
 * multi-round-trip continuation re-sends {@code tools/call} with {@code params.inputResponses} and
 * {@code params.requestState} beside {@code arguments} (schema.ts {@code
 * InputResponseRequestParams}). Neither field may make a replay a conflict. And the per-tool
 * in-flight choice: wait for the running attempt, or refuse at once as SEP-3182 does.
 */
class NextSpecRetriesTest {
  private static final String META_2026 =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
          + "\"2026-07-28\",\"io.modelcontextprotocol/clientInfo\":"
          + "{\"name\":\"raw\",\"version\":\"1\"}}";

  private final TestTools tools = new TestTools();
  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
  private McpGate mcpGate;
  private final List<AutoCloseable> open = new java.util.ArrayList<>();

  @BeforeEach
  void gate() {
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(30)).build())
            .build();
    mcpGate = McpGate.builder(gate).tenantResolver(TenantResolver.fixed("local")).build();
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private RawStdioServer server(ToolPolicy policy) {
    RawStdioServer server = new RawStdioServer(List.of(mcpGate.gate(tools.refundSpec(), policy)));
    open.add(server);
    return server;
  }

  /** A tools/call line: the refund, its key as the argument, and {@code extra} params fields. */
  private static String call(Object id, String key, Object amount, String extra) {
    String rawId = id instanceof String s ? "\"" + s + "\"" : String.valueOf(id);
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + rawId
        + ",\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"refund_order\",\"arguments\":{\"order_id\":\"ord_9f2\",\"amount_cents\":"
        + amount
        + ",\"idempotency_key\":\""
        + key
        + "\"},"
        + META_2026
        + (extra.isEmpty() ? "" : "," + extra)
        + "}}";
  }

  private static String continuation(String state, String answer) {
    return "\"inputResponses\":{\"confirm_refund\":{\"action\":\"accept\",\"content\":"
        + "{\"answer\":\""
        + answer
        + "\"}}},\"requestState\":\""
        + state
        + "\"";
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> result(Map<String, Object> response) {
    assertThat(response).as("a result, not a JSON-RPC error").containsKey("result");
    return (Map<String, Object>) response.get("result");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> structured(Map<String, Object> response) {
    return (Map<String, Object>) result(response).get("structuredContent");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> error(Map<String, Object> response) {
    Map<String, Object> result = result(response);
    assertThat(result.get("isError")).as("isError of %s", result).isEqualTo(true);
    return (Map<String, Object>)
        ((Map<String, Object>) result.get("structuredContent")).get("error");
  }

  @SuppressWarnings("unchecked")
  private static boolean replayed(Map<String, Object> response) {
    Map<String, Object> meta = (Map<String, Object>) result(response).get("_meta");
    return meta != null && Boolean.TRUE.equals(meta.get("dev.mcpgate/replayed"));
  }

  @Test
  void continuationFieldsBesideTheArgumentsNeverEnterTheHash() throws Exception {
    RawStdioServer server = server(ToolPolicy.defaults()).initialize();

    Map<String, Object> first = server.request(1, call(1, "k-mrtr-1", 1250, ""));
    Map<String, Object> withFields =
        server.request(2, call(2, "k-mrtr-1", 1250, continuation("state-A", "yes")));
    Map<String, Object> otherState =
        server.request("three", call("three", "k-mrtr-1", 1250, continuation("state-B", "no")));
    Map<String, Object> stateOnly =
        server.request(4, call(4, "k-mrtr-1", 1250, "\"requestState\":\"state-C\""));

    assertThat(tools.refunds).hasValue(1);
    assertThat(replayed(first)).isFalse();
    for (Map<String, Object> retry : List.of(withFields, otherState, stateOnly)) {
      assertThat(replayed(retry)).as("a replay, not a conflict: %s", retry).isTrue();
      assertThat(structured(retry).get("refund_id")).isEqualTo(structured(first).get("refund_id"));
    }
    // the hash still sees the arguments: another amount under the key is a conflict
    Map<String, Object> otherAmount =
        server.request(5, call(5, "k-mrtr-1", 999, continuation("state-A", "yes")));
    assertThat(error(otherAmount)).containsEntry("type", McpGateErrors.KEY_CONFLICT);
    assertThat(tools.refunds).hasValue(1);
    // the SDK (2.x) hands the handler the arguments alone: neither field reaches it
    assertThat(tools.lastRefundArguments).containsOnlyKeys("order_id", "amount_cents");
  }

  @Test
  void aCallThatCameWithContinuationFieldsReplaysToThePlainRetry() throws Exception {
    RawStdioServer server = server(ToolPolicy.defaults()).initialize();

    Map<String, Object> first =
        server.request(1, call(1, "k-mrtr-2", 1250, continuation("state-A", "yes")));
    Map<String, Object> plain = server.request(2, call(2, "k-mrtr-2", 1250, ""));
    Map<String, Object> otherState =
        server.request(3, call(3, "k-mrtr-2", 1250.0, continuation("state-Z", "yes")));

    assertThat(tools.refunds).hasValue(1);
    assertThat(replayed(first)).isFalse();
    assertThat(replayed(plain)).isTrue();
    assertThat(replayed(otherState)).isTrue();
    assertThat(structured(plain)).isEqualTo(structured(first));
  }

  @Test
  void aRetryWithANewIdOnAFreshProcessReplays() throws Exception {
    RawStdioServer original = server(ToolPolicy.defaults()).initialize();
    Map<String, Object> first = original.request(7, call(7, "k-conn-1", 1250, ""));
    original.close(); // the process died; its in-flight answers are lost

    // a fresh process over the same store: a new connection, a new id of another JSON type.
    // (SDK 2.1 still speaks the 2025 lifecycle and leaves a request on a connection that never
    // initialized unanswered, so this one initializes; the gate itself reads no session.)
    RawStdioServer restarted = server(ToolPolicy.defaults()).initialize();
    Map<String, Object> retry = restarted.request("retry-7", call("retry-7", "k-conn-1", 1250, ""));

    assertThat(tools.refunds).hasValue(1);
    assertThat(replayed(retry)).as("%s", retry).isTrue();
    assertThat(structured(retry).get("refund_id")).isEqualTo(structured(first).get("refund_id"));
  }

  @Test
  void aRetryThroughASecondClientWithItsOwnSessionReplays() {
    try (McpHarness http =
        McpHarness.http(List.of(mcpGate.gate(tools.refundSpec(), ToolPolicy.defaults())), null)) {
      McpSyncClient one = http.client("local");
      McpSyncClient two = http.client("local");
      CallToolRequest request =
          CallToolRequest.builder("refund_order")
              .arguments(Map.of("order_id", "ord_9f2", "amount_cents", 1250))
              .meta(Map.of(McpGateErrors.META_KEY, "k-client-1"))
              .build();

      CallToolResult first = one.callTool(request);
      CallToolResult retry = two.callTool(request);

      assertThat(tools.refunds).hasValue(1);
      assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
      assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
    }
  }

  @Test
  void refuseAnswersInProgressAtOnceWhileTheFirstCallRuns() throws Exception {
    tools.refundDelayMs.set(2_000);
    RawStdioServer server =
        server(ToolPolicy.builder().inFlight(InFlight.REFUSE).build()).initialize();

    CompletableFuture<Map<String, Object>> running = server.send(1, call(1, "k-busy-1", 1250, ""));
    awaitRefundStarted();
    long start = System.nanoTime();
    Map<String, Object> duplicate = server.request(2, call(2, "k-busy-1", 1250, ""));
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(running).isNotDone();
    assertThat(tookMs).as("answered at once, not after the 30 s in-flight wait").isLessThan(1_500);
    assertThat(error(duplicate))
        .containsEntry("type", McpGateErrors.KEY_IN_PROGRESS)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", true)
        .containsKey("retry_after_ms");
    Map<String, Object> first = running.get(30, TimeUnit.SECONDS);
    Map<String, Object> later = server.request(3, call(3, "k-busy-1", 1250, ""));
    assertThat(tools.refunds).hasValue(1);
    assertThat(replayed(later)).isTrue();
    assertThat(structured(later).get("refund_id")).isEqualTo(structured(first).get("refund_id"));
  }

  @Test
  void waitIsTheDefaultAndAnswersTheDuplicateWithTheFirstResult() throws Exception {
    tools.refundDelayMs.set(500);
    RawStdioServer server = server(ToolPolicy.defaults()).initialize();

    CompletableFuture<Map<String, Object>> running = server.send(1, call(1, "k-busy-2", 1250, ""));
    awaitRefundStarted();
    Map<String, Object> duplicate = server.request(2, call(2, "k-busy-2", 1250, ""));

    assertThat(replayed(duplicate)).as("%s", duplicate).isTrue();
    assertThat(structured(duplicate).get("refund_id"))
        .isEqualTo(structured(running.get(30, TimeUnit.SECONDS)).get("refund_id"));
    assertThat(tools.refunds).hasValue(1);
  }

  @Test
  void keyRequiredIsPerTool() throws Exception {
    McpServerFeatures.SyncToolSpecification optional =
        new McpServerFeatures.SyncToolSpecification(
            McpSchema.Tool.builder("refund_optional", tools.refundTool().inputSchema()).build(),
            (ex, req) -> tools.refund(req));
    RawStdioServer server =
        new RawStdioServer(
            List.of(
                mcpGate.gate(tools.refundSpec(), ToolPolicy.defaults()),
                mcpGate.gate(optional, ToolPolicy.builder().required(false).build())));
    open.add(server);
    server.initialize();
    String noKey = "\"arguments\":{\"order_id\":\"ord_9f2\",\"amount_cents\":1250}," + META_2026;

    Map<String, Object> refused =
        server.request(
            1,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                + "\"tools/call\",\"params\":{\"name\":\"refund_order\","
                + noKey
                + "}}");
    assertThat(error(refused))
        .containsEntry("type", McpGateErrors.KEY_REQUIRED)
        .containsEntry("executed", "no");
    assertThat(tools.refunds).hasValue(0);

    Map<String, Object> ran =
        server.request(
            2,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
                + "\"tools/call\",\"params\":{\"name\":\"refund_optional\","
                + noKey
                + "}}");
    assertThat(structured(ran)).containsEntry("gated", false);
    assertThat(tools.refunds).hasValue(1);
  }

  @Test
  @SuppressWarnings("unchecked")
  void toolsListSaysWhetherAKeyIsRequiredAndWhatADuplicateGets() throws Exception {
    McpServerFeatures.SyncToolSpecification refusing =
        new McpServerFeatures.SyncToolSpecification(
            McpSchema.Tool.builder("refund_refusing", tools.refundTool().inputSchema()).build(),
            (ex, req) -> tools.refund(req));
    RawStdioServer server =
        new RawStdioServer(
            List.of(
                mcpGate.gate(tools.refundSpec(), ToolPolicy.defaults()),
                mcpGate.gate(
                    refusing,
                    ToolPolicy.builder().required(false).inFlight(InFlight.REFUSE).build())));
    open.add(server);
    server.initialize();

    Map<String, Object> list =
        result(
            server.request(
                1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}"));
    Map<String, Map<String, Object>> gating = new java.util.HashMap<>();
    for (Map<String, Object> tool : (List<Map<String, Object>>) list.get("tools")) {
      gating.put(
          (String) tool.get("name"),
          (Map<String, Object>)
              ((Map<String, Object>) tool.get("_meta")).get(McpGateErrors.META_TOOL));
    }

    assertThat(gating.get("refund_order"))
        .containsEntry("key_required", true)
        .containsEntry("in_flight", "wait")
        .containsEntry("meta_key", McpGateErrors.META_KEY); // the default sources read _meta
    assertThat(gating.get("refund_refusing"))
        .containsEntry("key_required", false)
        .containsEntry("in_flight", "refuse");
  }

  private void awaitRefundStarted() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (tools.refunds.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(tools.refunds).as("the first call's handler started").hasValue(1);
  }
}
