package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * docs/mcp-adapter.md, "What the caller gets": the rows the adapter's other tests reach only
 * through {@code ModelMessages} or gate-core, here through a gated handler: a closed gate, a result
 * the store did not take, a stored result the codec cannot read back (for good, or for now), and a
 * wait for a running attempt that runs out.
 */
class FailureAnswersDocTrialTest {
  private final AtomicInteger runs = new AtomicInteger();

  private static McpSchema.Tool tool() {
    return McpSchema.Tool.builder("refund_order", Map.of("type", "object"))
        .description("Refund an order.")
        .build();
  }

  private static CallToolRequest call() {
    return new CallToolRequest("refund_order", Map.of("order", "o-1", "idempotency_key", "k-1"));
  }

  private SyncToolSpecification gated(
      IdempotencyGate gate, ToolPolicy policy, Function<CallToolRequest, CallToolResult> body) {
    return McpGate.builder(gate)
        .tenantResolver(TenantResolver.fixed("tests"))
        .build()
        .gate(
            SyncToolSpecification.builder()
                .tool(tool())
                .callHandler(
                    (exchange, request) -> {
                      runs.incrementAndGet();
                      return body.apply(request);
                    })
                .build(),
            policy);
  }

  private static CallToolResult refunded(CallToolRequest request) {
    return CallToolResult.builder().addTextContent("refunded").build();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> error(CallToolResult result) {
    assertThat(result.isError()).as("%s", result).isTrue();
    return (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
  }

  @Test
  void aClosedGateSaysShuttingDownNothingRanRetrySafe() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    SyncToolSpecification plain = gated(gate, ToolPolicy.defaults(), r -> refunded(r));
    SyncToolSpecification transactional =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("tests"))
            .build()
            .gateTransactional(
                tool(),
                ToolPolicy.defaults(),
                new TrialUnitOfWork(store),
                (exchange, request, scope, writes) -> refunded(request));
    gate.close();

    for (CallToolResult answer :
        new CallToolResult[] {
          plain.callHandler().apply(null, call()), transactional.callHandler().apply(null, call())
        }) {
      assertThat(error(answer))
          .containsEntry("type", "idempotency_store_unavailable")
          .containsEntry("executed", "no")
          .containsEntry("retry_with_same_key", true);
      assertThat(error(answer).get("message").toString()).contains("shutting down");
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void aResultTheStoreDidNotTakeIsAnsweredAndItsKeyFenced() {
    AtomicBoolean completeFails = new AtomicBoolean(true);
    IdempotencyStore store =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public boolean complete(
              ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
            if (completeFails.getAndSet(false)) {
              throw new IllegalStateException("connection lost (test)");
            }
            return super.complete(id, token, result, retention);
          }
        };
    SyncToolSpecification gated =
        gated(IdempotencyGate.builder(store).build(), ToolPolicy.defaults(), r -> refunded(r));

    CallToolResult first = gated.callHandler().apply(null, call());
    CallToolResult retry = gated.callHandler().apply(null, call());

    assertThat(first).isEqualTo(refunded(null));
    assertThat(error(retry))
        .containsEntry("type", "idempotency_outcome_unknown")
        .containsEntry("executed", "unknown");
    assertThat(runs).hasValue(1);
  }

  @Test
  void anUnreadableResultIsNeverRunAgainAndSaysWhetherALaterRetryHelps() {
    AtomicBoolean keyServiceDown = new AtomicBoolean();
    ResultCodec codec =
        new ResultCodec() {
          @Override
          public byte[] encode(ClaimId id, byte[] plain) {
            return plain;
          }

          @Override
          public byte[] decode(ClaimId id, byte[] stored) {
            if (keyServiceDown.get()) {
              throw new StoreUnavailableException("key service timed out (test)", null);
            }
            throw new IllegalStateException("no such key id (test)");
          }
        };
    SyncToolSpecification gated =
        gated(
            IdempotencyGate.builder(InMemoryIdempotencyStore.create()).codec(codec).build(),
            ToolPolicy.defaults(),
            r -> refunded(r));
    gated.callHandler().apply(null, call());

    CallToolResult lost = gated.callHandler().apply(null, call());
    keyServiceDown.set(true);
    CallToolResult forNow = gated.callHandler().apply(null, call());

    assertThat(error(lost))
        .containsEntry("type", "idempotency_outcome_unknown")
        .containsEntry("executed", "yes")
        .containsEntry("retry_with_same_key", false);
    assertThat(error(forNow))
        .containsEntry("type", "idempotency_outcome_unknown")
        .containsEntry("executed", "yes")
        .containsEntry("retry_with_same_key", true);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aWaitThatRunsOutIsInProgressWithRetryAfter() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    SyncToolSpecification gated =
        gated(
            IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build(),
            ToolPolicy.builder().inFlightWait(Duration.ofMillis(300)).build(),
            r -> {
              started.countDown();
              try {
                finish.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return refunded(r);
            });
    CompletableFuture<CallToolResult> first =
        CompletableFuture.supplyAsync(() -> gated.callHandler().apply(null, call()));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    CallToolResult duplicate = gated.callHandler().apply(null, call());
    finish.countDown();
    first.get(10, TimeUnit.SECONDS);

    assertThat(error(duplicate))
        .containsEntry("type", "idempotency_key_in_progress")
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", true)
        .containsKey("retry_after_ms");
    assertThat(runs).hasValue(1);
  }
}
