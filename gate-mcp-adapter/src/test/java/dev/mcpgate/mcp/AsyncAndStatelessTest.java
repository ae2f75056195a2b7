package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateSettings;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Async specifications on an async server, and stateless specifications called directly. */
class AsyncAndStatelessTest {
  private final TestTools tools = new TestTools();
  private final McpGate mcpGate =
      McpGate.builder(
              IdempotencyGate.builder(InMemoryIdempotencyStore.create())
                  .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(30)).build())
                  .build())
          .tenantResolver(TenantResolver.fromTransportContext("tenant"))
          .build();

  @Test
  void asyncToolOnAnAsyncServerRunsOnceAndKeepsStoreCallsOffEventThreads() throws Exception {
    tools.refundDelayMs.set(200);
    try (McpHarness harness =
        McpHarness.http(
            null, List.of(mcpGate.gate(tools.refundAsyncSpec(), ToolPolicy.defaults())))) {
      List<CompletableFuture<CallToolResult>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        McpSyncClient client = harness.client("acme");
        calls.add(
            CompletableFuture.supplyAsync(
                () -> client.callTool(GatedServerContract.refund("async-1", 500))));
      }
      for (CompletableFuture<CallToolResult> call : calls) {
        CallToolResult result = call.get(60, TimeUnit.SECONDS);
        assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
        // the async handler read the claim it ran under
        assertThat(result.structuredContent().toString())
            .contains("gated=true")
            .contains("downstream_key=mcpgate-");
      }
    }
    assertThat(tools.refunds).hasValue(1);
    assertThat(tools.lastHandlerThread).startsWith("mcpgate-async-tool");
  }

  @Test
  void statelessSyncSpecificationIsGatedPerTenantFromItsTransportContext() {
    McpStatelessServerFeatures.SyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(), (ctx, req) -> tools.refund(req)),
            ToolPolicy.defaults());
    McpTransportContext acme = McpTransportContext.create(Map.of("tenant", "acme"));
    McpTransportContext globex = McpTransportContext.create(Map.of("tenant", "globex"));

    spec.callHandler().apply(acme, GatedServerContract.refund("s-1", 500));
    CallToolResult retry = spec.callHandler().apply(acme, GatedServerContract.refund("s-1", 500));
    spec.callHandler().apply(globex, GatedServerContract.refund("s-1", 500));
    CallToolResult none =
        spec.callHandler().apply(McpTransportContext.EMPTY, GatedServerContract.refund("s-1", 500));

    assertThat(tools.refunds).hasValue(2);
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(GatedServerContract.error(none)).containsEntry("type", McpGateErrors.TENANT_UNKNOWN);
  }

  @Test
  void statelessAsyncSpecificationIsGated() {
    McpStatelessServerFeatures.AsyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.AsyncToolSpecification(
                tools.refundTool(), (ctx, req) -> Mono.fromCallable(() -> tools.refund(req))),
            ToolPolicy.defaults());
    McpTransportContext acme = McpTransportContext.create(Map.of("tenant", "acme"));

    spec.callHandler().apply(acme, GatedServerContract.refund("s-2", 500)).block();
    CallToolResult retry =
        spec.callHandler().apply(acme, GatedServerContract.refund("s-2", 500)).block();

    assertThat(tools.refunds).hasValue(1);
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void isErrorResultsAreReleasedByDefaultAndStoredWhenThePolicySays() {
    McpSchema.Tool tool = tools.refundTool();
    int[] runs = new int[1];
    McpStatelessServerFeatures.SyncToolSpecification declines =
        new McpStatelessServerFeatures.SyncToolSpecification(
            tool,
            (ctx, req) -> {
              runs[0]++;
              return CallToolResult.builder().isError(true).addTextContent("card declined").build();
            });
    McpTransportContext acme = McpTransportContext.create(Map.of("tenant", "acme"));
    var released = mcpGate.gate(declines, ToolPolicy.defaults());
    var stored =
        mcpGate.gate(
            declines,
            ToolPolicy.builder()
                .settings(GateSettings.builder().failureMode(GatePolicy.FailureMode.STORE).build())
                .build());

    released.callHandler().apply(acme, GatedServerContract.refund("e-1", 500));
    released.callHandler().apply(acme, GatedServerContract.refund("e-1", 500));
    stored.callHandler().apply(acme, GatedServerContract.refund("e-2", 500));
    CallToolResult replay =
        stored.callHandler().apply(acme, GatedServerContract.refund("e-2", 500));

    assertThat(runs[0]).isEqualTo(3);
    assertThat(replay.isError()).isTrue();
    assertThat(replay.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void authorizationIsCheckedAgainOnEveryReplay() {
    McpGate guarded =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .authorizer(
                (tenant, context, request) ->
                    "refunds".equals(context.get("role"))
                        ? null
                        : "Your role may not refund orders.")
            .build();
    var spec =
        guarded.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(), (ctx, req) -> tools.refund(req)),
            ToolPolicy.defaults());
    McpTransportContext clerk =
        McpTransportContext.create(Map.of("tenant", "acme", "role", "refunds"));
    McpTransportContext viewer =
        McpTransportContext.create(Map.of("tenant", "acme", "role", "viewer"));

    CallToolResult first = spec.callHandler().apply(clerk, GatedServerContract.refund("a-1", 500));
    CallToolResult replayToViewer =
        spec.callHandler().apply(viewer, GatedServerContract.refund("a-1", 500));
    CallToolResult replayToClerk =
        spec.callHandler().apply(clerk, GatedServerContract.refund("a-1", 500));

    assertThat(tools.refunds).hasValue(1);
    assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(GatedServerContract.error(replayToViewer))
        .containsEntry("type", McpGateErrors.FORBIDDEN)
        .containsEntry("message", "Your role may not refund orders.");
    assertThat(replayToViewer.structuredContent().toString()).doesNotContain("refund_id");
    assertThat(replayToClerk.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void keysAreRequiredUnlessThePolicySaysOtherwise() {
    var optional =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(), (ctx, req) -> tools.refund(req)),
            ToolPolicy.builder().required(false).build());
    McpTransportContext acme = McpTransportContext.create(Map.of("tenant", "acme"));

    CallToolResult ungated =
        optional.callHandler().apply(acme, GatedServerContract.refund(null, 500));

    assertThat(tools.refunds).hasValue(1);
    assertThat(ungated.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(ungated.structuredContent().toString()).contains("gated=false");
  }
}
