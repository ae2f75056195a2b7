package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * A transport that cancels an async call (its subscriber disposes) while the handler runs: the
 * worker thread is interrupted, the key is fenced as unknown (the handler may have acted), and a
 * retry with the same key is told so instead of running again.
 */
class AsyncCancellationTest {
  private static final ClaimId ID = new ClaimId("context:acme", "refund_order", "c-1");

  private final TestTools tools = new TestTools();
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create())
          .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
          .build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fromTransportContext("tenant")).build();
  private final McpTransportContext acme = McpTransportContext.create(Map.of("tenant", "acme"));

  @AfterEach
  void close() {
    gate.close();
  }

  @Test
  void aCancelledAsyncCallFencesItsKeyAsUnknownAndTheRetryIsToldSo() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    McpStatelessServerFeatures.AsyncToolSpecification spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.AsyncToolSpecification(
                tools.refundTool(),
                (ctx, req) ->
                    Mono.<CallToolResult>never()
                        .doOnSubscribe(s -> started.countDown())
                        .doOnCancel(interrupted::countDown)),
            ToolPolicy.defaults());

    Disposable call =
        spec.callHandler().apply(acme, GatedServerContract.refund("c-1", 500)).subscribe();
    assertThat(started.await(10, TimeUnit.SECONDS)).as("the handler started").isTrue();
    call.dispose();

    assertThat(interrupted.await(10, TimeUnit.SECONDS))
        .as("the blocked handler was cancelled by the interrupt")
        .isTrue();
    assertThat(awaitSettled()).map(ClaimRecord::state).contains(ClaimState.UNKNOWN);

    CallToolResult retry =
        spec.callHandler()
            .apply(acme, GatedServerContract.refund("c-1", 500))
            .block(Duration.ofSeconds(10));

    assertThat(GatedServerContract.error(retry))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", false);
  }

  /**
   * @return the row once it is no longer in progress (or after 10 s)
   */
  private Optional<ClaimRecord> awaitSettled() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    Optional<ClaimRecord> row = gate.find(ID);
    while (row.isPresent()
        && row.get().state() == ClaimState.IN_PROGRESS
        && System.nanoTime() < deadline) {
      Thread.sleep(10);
      row = gate.find(ID);
    }
    return row;
  }
}
