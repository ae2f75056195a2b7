package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The claim reaches the handler through {@link GatedClaim}, not through the request's wire data.
 */
class GatedClaimTest {
  private final TestTools tools = new TestTools();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("acme"))
          .build();

  @Test
  void handlerFindsItsClaimWhileItRunsAndNothingOfItTravelsInMeta() {
    AtomicReference<CallToolRequest> seen = new AtomicReference<>();
    AtomicReference<Optional<ClaimContext>> during = new AtomicReference<>();
    McpStatelessServerFeatures.SyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(),
                (ctx, req) -> {
                  seen.set(req);
                  during.set(GatedClaim.of(req));
                  return CallToolResult.builder().addTextContent("ok").build();
                }),
            ToolPolicy.defaults());
    CallToolRequest request =
        new CallToolRequest(
            "refund_order",
            Map.of("order_id", "ord_1", "amount_cents", 5, "idempotency_key", "k-1"),
            Map.of("client", "test"));

    spec.callHandler().apply(McpTransportContext.EMPTY, request);

    assertThat(during.get())
        .hasValueSatisfying(
            claim -> {
              assertThat(claim.id().key()).isEqualTo("k-1");
              assertThat(claim.downstreamKey()).startsWith("mcpgate-");
            });
    assertThat(seen.get().meta()).isEqualTo(Map.of("client", "test"));
    assertThat(seen.get()).isNotSameAs(request);
    assertThat(GatedClaim.of(seen.get())).as("gone once the handler returned").isEmpty();
    assertThat(GatedClaim.of(request)).as("the caller's own request carries no claim").isEmpty();
  }

  @Test
  void onlyTheHandlersOwnRequestFindsItsClaimNotACopyWithItsMeta() throws Exception {
    AtomicReference<Optional<ClaimContext>> copy = new AtomicReference<>();
    AtomicReference<Optional<ClaimContext>> equalMeta = new AtomicReference<>();
    AtomicReference<Map<String, Object>> meta = new AtomicReference<>();
    McpStatelessServerFeatures.SyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tools.refundTool(),
                (ctx, req) -> {
                  meta.set(req.meta());
                  copy.set(
                      GatedClaim.of(new CallToolRequest(req.name(), req.arguments(), req.meta())));
                  equalMeta.set(
                      GatedClaim.of(
                          new CallToolRequest(
                              req.name(), req.arguments(), new HashMap<>(req.meta()))));
                  return CallToolResult.builder().addTextContent("ok").build();
                }),
            ToolPolicy.defaults());

    spec.callHandler()
        .apply(
            McpTransportContext.EMPTY,
            new McpSchema.CallToolRequest(
                "refund_order", Map.of("order_id", "ord_1", "idempotency_key", "k-2"), null));

    assertThat(copy.get()).as("a copy made with the handler's own meta map").isEmpty();
    assertThat(equalMeta.get()).isEmpty();
    assertThat(meta.get()).as("no _meta came: the handler sees an empty map").isEmpty();
    assertThat(McpJsonDefaults.getMapper().writeValueAsString(meta.get()))
        .as("the claim is no entry of the map, so it is never written out")
        .isEqualTo("{}");
  }

  @Test
  void twoGatesOnTwoThreadsEachFindTheirOwnClaimAndNoneStays() throws Exception {
    McpGate other =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("globex"))
            .build();
    CountDownLatch bothIn = new CountDownLatch(2);
    Map<String, String> seen = new ConcurrentHashMap<>();
    List<CallToolRequest> handed = new CopyOnWriteArrayList<>();
    java.util.function.BiFunction<McpTransportContext, CallToolRequest, CallToolResult> handler =
        (ctx, req) -> {
          handed.add(req);
          bothIn.countDown();
          try {
            bothIn.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ClaimContext claim = GatedClaim.of(req).orElseThrow();
          seen.put(claim.id().tenant(), claim.id().key());
          return CallToolResult.builder().addTextContent("ok").build();
        };
    var acme = mcpGate.gate(spec(handler), ToolPolicy.defaults());
    var globex = other.gate(spec(handler), ToolPolicy.defaults());
    CompletableFuture<?> a =
        CompletableFuture.runAsync(
            () -> acme.callHandler().apply(McpTransportContext.EMPTY, call("k-a")));
    CompletableFuture<?> g =
        CompletableFuture.runAsync(
            () -> globex.callHandler().apply(McpTransportContext.EMPTY, call("k-g")));
    CompletableFuture.allOf(a, g).get(20, TimeUnit.SECONDS);

    assertThat(seen)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("constant:acme", "k-a", "constant:globex", "k-g"));
    assertThat(handed).hasSize(2).allSatisfy(r -> assertThat(GatedClaim.of(r)).isEmpty());
  }

  private McpStatelessServerFeatures.SyncToolSpecification spec(
      java.util.function.BiFunction<McpTransportContext, CallToolRequest, CallToolResult> handler) {
    return new McpStatelessServerFeatures.SyncToolSpecification(
        tools.refundTool(), (ctx, req) -> handler.apply(ctx, req));
  }

  private static CallToolRequest call(String key) {
    return new CallToolRequest(
        "refund_order", Map.of("order_id", "ord_1", "idempotency_key", key), null);
  }
}
