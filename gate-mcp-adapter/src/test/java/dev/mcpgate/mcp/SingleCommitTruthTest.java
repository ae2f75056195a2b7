package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.StoredResult;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An outcome-unknown failure in single-commit mode: the core rolls the whole transaction back, the
 * claim included, so the key is free at once. The adapter reads what the gate did to the row (not
 * its own guess from the exception), and never tells the model the key is fenced when the very next
 * retry runs the handler again. (Found in review: the adapter used to say "fenced".)
 */
class SingleCommitTruthTest {
  private static final ClaimId ID = new ClaimId("constant:acme", "refund_order", "k-1");

  /** A single-commit unit over the in-memory store: a claim is undone by a rollback. */
  static final class ClaimingUnit implements ClaimingScope<List<Runnable>> {
    private final FlakyStore store;

    ClaimingUnit(FlakyStore store) {
      this.store = store;
    }

    @Override
    public List<Runnable> begin() {
      return new ArrayList<>();
    }

    @Override
    public ClaimAttempt claim(List<Runnable> undo, ClaimRequest request, Duration wait) {
      ClaimAttempt a = store.claim(request);
      if (a instanceof ClaimAttempt.Acquired) {
        undo.add(() -> store.release(request.id(), request.token()));
      }
      return a;
    }

    @Override
    public boolean complete(
        List<Runnable> undo,
        ClaimId id,
        LeaseToken token,
        StoredResult result,
        Duration retention) {
      return store.complete(id, token, result, retention);
    }

    @Override
    public boolean release(List<Runnable> undo, ClaimId id, LeaseToken token) {
      return store.release(id, token);
    }

    @Override
    public void commit(List<Runnable> undo) {
      undo.clear();
    }

    @Override
    public void rollback(List<Runnable> undo) {
      undo.forEach(Runnable::run);
      undo.clear();
    }

    @Override
    public void close(List<Runnable> undo) {}
  }

  @Test
  void anUnknownOutcomeInSingleCommitModeIsNotToldAsFencedWhenTheKeyWasFreed() {
    FlakyStore store = new FlakyStore();
    ClaimingUnit unit = new ClaimingUnit(store);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
            .build()) {
      GatedTool tool =
          new GatedTool(
              new TestTools().refundTool(),
              ToolPolicy.defaults(),
              gate,
              TenantResolver.fixed("acme"),
              null,
              new CallToolResultMapper(McpJsonDefaults.getMapper()),
              Auditor.NONE);
      Invocation failing =
          new Invocation.SingleCommit<>(
              "refund_order",
              unit,
              (r, undo) -> {
                runs.incrementAndGet();
                throw new OutcomeUnknownException("the provider timed out");
              });
      // the single-commit transaction rolled back, claim included: the handler's failure goes
      // out as it is (a retry runs again), never "the key is fenced until someone settles it"
      assertThatThrownBy(
              () ->
                  tool.call(
                      McpTransportContext.EMPTY, GatedServerContract.refund("k-1", 500), failing))
          .isInstanceOf(OutcomeUnknownException.class);
      assertThat(store.row(ID)).as("the key is free").isEmpty();

      CallToolResult retry =
          tool.call(
              McpTransportContext.EMPTY,
              GatedServerContract.refund("k-1", 500),
              new Invocation.SingleCommit<>(
                  "refund_order",
                  unit,
                  (r, undo) -> {
                    runs.incrementAndGet();
                    return CallToolResult.builder().addTextContent("refunded").build();
                  }));

      assertThat(retry.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(runs).hasValue(2);
    }
  }
}
