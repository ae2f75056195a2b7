package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * End to end through the real protocol: a real McpSyncClient against a real server whose tools are
 * gated. One subclass per transport.
 */
abstract class GatedServerContract {
  protected final TestTools tools = new TestTools();
  protected McpHarness harness;
  protected McpGate mcpGate;

  abstract TenantResolver tenantResolver();

  abstract McpHarness start(List<McpServerFeatures.SyncToolSpecification> specs);

  @BeforeEach
  void startServer() {
    IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create())
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(30)).build())
            .build();
    mcpGate = McpGate.builder(gate).tenantResolver(tenantResolver()).build();
    harness =
        start(
            List.of(
                mcpGate.gate(tools.refundSpec(), ToolPolicy.defaults()),
                mcpGate.gate(
                    tools.stopSessionSpec(),
                    ToolPolicy.builder()
                        .keySources(KeySource.META)
                        .naturalKey("session_id", "end_at")
                        .build()),
                mcpGate.gate(tools.getStorySpec(), ToolPolicy.defaults())));
  }

  @AfterEach
  void stopServer() {
    harness.close();
  }

  static CallToolRequest refund(String key, Object amount) {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("order_id", "ord_9f2");
    args.put("amount_cents", amount);
    if (key != null) {
      args.put("idempotency_key", key);
    }
    return new CallToolRequest("refund_order", args);
  }

  static String json(Object value) throws Exception {
    return McpJsonDefaults.getMapper().writeValueAsString(value);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> error(CallToolResult result) {
    assertThat(result.isError()).as("isError of %s", result).isTrue();
    return (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
  }

  @Test
  void sameCallTwiceRunsTheHandlerOnceAndReturnsTheIdenticalResult() throws Exception {
    McpSyncClient client = harness.client("acme");
    CallToolResult first = client.callTool(refund("k-1", 500));
    CallToolResult retry = client.callTool(refund("k-1", 500));

    assertThat(tools.refunds).hasValue(1);
    assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(json(retry.content())).isEqualTo(json(first.content()));
    assertThat(json(retry.structuredContent())).isEqualTo(json(first.structuredContent()));
    assertThat(retry.isError()).isEqualTo(first.isError());
    Map<String, Object> meta = new LinkedHashMap<>(retry.meta());
    assertThat(meta.remove(McpGateErrors.META_REPLAYED)).isEqualTo(true);
    assertThat(meta.remove(McpGateErrors.META_FIRST_EXECUTED_AT)).isInstanceOf(String.class);
    assertThat(meta).isEqualTo(first.meta());
    assertThat(first.meta()).doesNotContainKey(McpGateErrors.META_REPLAYED);
  }

  @Test
  void sixteenConcurrentCopiesRunTheHandlerOnce() throws Exception {
    tools.refundDelayMs.set(300);
    List<McpSyncClient> clients = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      clients.add(harness.client("acme"));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<CallToolResult>> calls = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        McpSyncClient client = clients.get(i % clients.size());
        calls.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    go.await();
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return client.callTool(refund("k-concurrent", 500));
                },
                pool));
      }
      go.countDown();
      List<String> structured = new ArrayList<>();
      for (CompletableFuture<CallToolResult> call : calls) {
        CallToolResult r = call.get(60, TimeUnit.SECONDS);
        assertThat(r.isError()).as("%s", r).isNotEqualTo(Boolean.TRUE);
        structured.add(json(r.structuredContent()));
      }
      assertThat(tools.refunds).hasValue(1);
      assertThat(structured).containsOnly(structured.get(0));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void sameKeyWithOtherArgumentsIsAConflictAndRunsNothing() {
    McpSyncClient client = harness.client("acme");
    client.callTool(refund("k-2", 500));
    CallToolResult conflict = client.callTool(refund("k-2", 900));

    assertThat(tools.refunds).hasValue(1);
    assertThat(error(conflict)).containsEntry("type", McpGateErrors.KEY_CONFLICT);
    assertThat(((McpSchema.TextContent) conflict.content().get(0)).text())
        .contains("different arguments");
  }

  @Test
  void memberOrderAndOneVersusOnePointZeroAreTheSameCall() {
    McpSyncClient client = harness.client("acme");
    client.callTool(refund("k-3", 500));
    Map<String, Object> reordered = new LinkedHashMap<>();
    reordered.put("idempotency_key", "k-3");
    reordered.put("amount_cents", 500.0);
    reordered.put("order_id", "ord_9f2");
    CallToolResult retry = client.callTool(new CallToolRequest("refund_order", reordered));

    assertThat(tools.refunds).hasValue(1);
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void missingKeyIsRefusedAndTheHandlerDoesNotRun() {
    CallToolResult refused = harness.client("acme").callTool(refund(null, 500));

    assertThat(tools.refunds).hasValue(0);
    assertThat(error(refused)).containsEntry("type", McpGateErrors.KEY_REQUIRED);
    assertThat(((McpSchema.TextContent) refused.content().get(0)).text())
        .contains("idempotency_key");
  }

  @Test
  void blankKeyIsRefusedAsInvalid() {
    CallToolResult refused = harness.client("acme").callTool(refund("   ", 500));

    assertThat(tools.refunds).hasValue(0);
    assertThat(error(refused)).containsEntry("type", McpGateErrors.KEY_INVALID);
  }

  @Test
  void everyKeyProblemGetsTheTypedRefusalNotTheSdksSchemaError() {
    McpSyncClient client = harness.client("acme");
    for (Object bad : List.of("", "k".repeat(256), 42, List.of("k"), Map.of("k", 1))) {
      Map<String, Object> args = new LinkedHashMap<>(refund(null, 500).arguments());
      args.put("idempotency_key", bad);
      CallToolResult refused = client.callTool(new CallToolRequest("refund_order", args));
      assertThat(error(refused)).as("key %s", bad).containsEntry("type", McpGateErrors.KEY_INVALID);
    }
    assertThat(tools.refunds).hasValue(0);
  }

  @Test
  void failingHandlerLetsTheRetryRun() {
    McpSyncClient client = harness.client("acme");
    tools.failNextRefund.set(true);
    assertThatThrownBy(
        () -> {
          CallToolResult r = client.callTool(refund("k-4", 500));
          if (Boolean.TRUE.equals(r.isError())) {
            throw new IllegalStateException("tool error: " + r.content());
          }
        });
    CallToolResult retry = client.callTool(refund("k-4", 500));

    assertThat(tools.refunds).hasValue(2);
    assertThat(retry.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(retry.meta()).doesNotContainKey(McpGateErrors.META_REPLAYED);
  }

  @Test
  void theKeyArgumentIsRemovedBeforeTheHandlerSeesTheArguments() {
    harness.client("acme").callTool(refund("k-5", 500));

    assertThat(tools.lastRefundArguments).containsOnlyKeys("order_id", "amount_cents");
  }

  @Test
  void keyFromMetaWorksLikeAnArgument() {
    McpSyncClient client = harness.client("acme");
    CallToolRequest viaMeta =
        new CallToolRequest(
            "refund_order",
            Map.of("order_id", "ord_9f2", "amount_cents", 500),
            Map.of(McpGateErrors.META_KEY, "meta-key-1"));
    client.callTool(viaMeta);
    CallToolResult retry = client.callTool(viaMeta);

    assertThat(tools.refunds).hasValue(1);
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void naturalKeyMakesTheSameStopOnceAndAnotherStopAgain() {
    McpSyncClient client = harness.client("acme");
    CallToolRequest stop =
        new CallToolRequest(
            "stop_session", Map.of("session_id", "s1", "end_at", "2026-11-30T14:05:00Z"));
    client.callTool(stop);
    CallToolResult retry = client.callTool(stop);
    client.callTool(
        new CallToolRequest(
            "stop_session", Map.of("session_id", "s1", "end_at", "2026-11-30T14:20:00Z")));

    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(tools.stops).hasValue(2);
  }

  @Test
  void handlerSeesTheDownstreamKeyOfItsClaim() throws Exception {
    CallToolResult first = harness.client("acme").callTool(refund("k-6", 500));

    @SuppressWarnings("unchecked")
    Map<String, Object> structured = (Map<String, Object>) first.structuredContent();
    assertThat((String) structured.get("downstream_key")).matches("mcpgate-[0-9a-f]{40}");
    assertThat(structured).containsEntry("takeover", false);
  }

  @Test
  void toolsListShowsTheKeyTheSentenceAndTheHint() {
    List<McpSchema.Tool> listed = harness.client("acme").listTools().tools();
    McpSchema.Tool refund =
        listed.stream().filter(t -> t.name().equals("refund_order")).findFirst().orElseThrow();

    @SuppressWarnings("unchecked")
    Map<String, Object> properties = (Map<String, Object>) refund.inputSchema().get("properties");
    assertThat(properties).containsKey("idempotency_key");
    @SuppressWarnings("unchecked")
    Map<String, Object> key = (Map<String, Object>) properties.get("idempotency_key");
    assertThat(key).doesNotContainKeys("type", "minLength", "maxLength");
    assertThat(key.get("description").toString()).contains("A string of 1 to 255 characters");
    assertThat(refund.inputSchema().get("required").toString()).doesNotContain("idempotency_key");
    assertThat(refund.description())
        .startsWith("Refund part of an order.")
        .contains("retry it with the same idempotency_key");
    assertThat(refund.annotations().idempotentHint()).isTrue();
    assertThat(refund.annotations().destructiveHint()).isTrue();
    assertThat(refund.meta()).containsKey(McpGateErrors.META_TOOL);
    assertThat(refund.meta().get(McpGateErrors.META_TOOL).toString()).contains("idempotency_key");

    McpSchema.Tool story =
        listed.stream().filter(t -> t.name().equals("get_story")).findFirst().orElseThrow();
    assertThat(story.inputSchema().get("properties").toString()).doesNotContain("idempotency_key");
  }

  @Test
  void readOnlyToolIsNotGated() {
    McpSyncClient client = harness.client("acme");
    client.callTool(new CallToolRequest("get_story", Map.of("slug", "a")));
    CallToolResult again = client.callTool(new CallToolRequest("get_story", Map.of("slug", "a")));

    assertThat(tools.reads).hasValue(2);
    assertThat(again.meta() == null || !again.meta().containsKey(McpGateErrors.META_REPLAYED))
        .isTrue();
  }
}
