package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.Redaction;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Findings of an adversarial review of the change that made failures a case of the result, at the
 * adapter: each test failed on that change (ebd987f).
 */
class FailedAnswerReviewTest {
  private static final ClaimId ID = new ClaimId("constant:acme", "refund_order", "k-1");
  private final List<AuditRecord> audit = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private GatedTool tool(IdempotencyGate gate, ResultMapper<CallToolResult> mapper) {
    return new GatedTool(
        new TestTools().refundTool(),
        ToolPolicy.defaults(),
        gate,
        TenantResolver.fixed("acme"),
        null,
        mapper,
        new Auditor(audit::add, Redaction.none(), null));
  }

  /**
   * A1. The handler ran and took effect; the result mapper then throws an Error (a
   * StackOverflowError on a deep result, say). The gate fences the key as unknown (the effect
   * happened) and throws the Error on. Before the change the adapter saw the attempt had run and
   * was fenced: audit OUTCOME_UNKNOWN, attempt 1. Now it is "the gate threw": audit FAILED
   * ("nothing ran in this call"), attempt 0.
   */
  @Test
  void anErrorOfTheMapperAfterTheHandlerRanIsNotAuditedAsNothingRan() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    ResultMapper<CallToolResult> real = new CallToolResultMapper(McpJsonDefaults.getMapper());
    ResultMapper<CallToolResult> overflowing =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(CallToolResult value) {
            throw new StackOverflowError("serializing a deep result (test)");
          }

          @Override
          public CallToolResult fromBytes(byte[] bytes) {
            return real.fromBytes(bytes);
          }

          @Override
          public boolean isFailure(CallToolResult value) {
            return real.isFailure(value);
          }
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GatedTool tool = tool(gate, overflowing);
      assertThatThrownBy(
              () ->
                  tool.call(
                      McpTransportContext.EMPTY,
                      GatedServerContract.refund("k-1", 500),
                      new Invocation.Direct(
                          request -> {
                            runs.incrementAndGet();
                            return CallToolResult.builder().addTextContent("refunded").build();
                          })))
          .isInstanceOf(StackOverflowError.class);

      assertThat(runs).hasValue(1);
      assertThat(store.find(ID).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
      AuditRecord rec = audit.get(0);
      assertThat(rec.attempt()).as("the attempt that ran").isEqualTo(1);
      assertThat(rec.decision())
          .as("the handler ran and the key is fenced: not 'nothing ran'")
          .isEqualTo(AuditDecision.OUTCOME_UNKNOWN);
    }
  }

  /**
   * A2. Single-commit: the store cannot write the claim (JdbcTransactionScope throws
   * StoreUnavailableException). Before: the model got idempotency_store_unavailable, executed no,
   * retry with the same key. Now the exception escapes the gate and the client gets it thrown
   * (audit FAILED).
   */
  @Test
  void aSingleCommitClaimTheStoreCannotWriteIsToldStoreUnavailable() {
    FlakyStore store = new FlakyStore();
    SingleCommitTruthTest.ClaimingUnit real = new SingleCommitTruthTest.ClaimingUnit(store);
    dev.mcpgate.core.spi.ClaimingScope<List<Runnable>> unit =
        new dev.mcpgate.core.spi.ClaimingScope<>() {
          @Override
          public List<Runnable> begin() {
            return real.begin();
          }

          @Override
          public ClaimAttempt claim(List<Runnable> undo, ClaimRequest request, Duration wait) {
            throw new StoreUnavailableException("connection reset during claim (test)", null);
          }

          @Override
          public boolean complete(
              List<Runnable> undo, ClaimId id, LeaseToken t, StoredResult s, Duration ret) {
            return real.complete(undo, id, t, s, ret);
          }

          @Override
          public boolean release(List<Runnable> undo, ClaimId id, LeaseToken t) {
            return real.release(undo, id, t);
          }

          @Override
          public void commit(List<Runnable> undo) {
            real.commit(undo);
          }

          @Override
          public void rollback(List<Runnable> undo) {
            real.rollback(undo);
          }

          @Override
          public void close(List<Runnable> undo) {}
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GatedTool tool = tool(gate, new CallToolResultMapper(McpJsonDefaults.getMapper()));
      CallToolResult result =
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

      assertThat(runs).hasValue(0);
      assertThat(GatedServerContract.error(result))
          .containsEntry("type", McpGateErrors.STORE_UNAVAILABLE)
          .containsEntry("executed", "no");
      assertThat(audit.get(0).decision()).isEqualTo(AuditDecision.STORE_UNAVAILABLE);
    }
  }

  /**
   * A3. The claim was taken but the unit of work could not begin: no handler ran. Before, the audit
   * recorded no attempt (the AtomicReference was never set); now it records attempt 1, from
   * Failed.attempt(), which the engine fills with the claim's attempt.
   */
  @Test
  void aFailureBetweenTheClaimAndTheHandlerIsAuditedWithoutAnAttempt() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    TransactionScope<Object> noConnection =
        new TransactionScope<>() {
          @Override
          public Object begin() {
            throw new StoreUnavailableException("no connection in the pool (test)", null);
          }

          @Override
          public boolean complete(
              Object r, ClaimId id, LeaseToken t, StoredResult s, Duration retention) {
            return store.complete(id, t, s, retention);
          }

          @Override
          public boolean release(Object r, ClaimId id, LeaseToken t) {
            return store.release(id, t);
          }

          @Override
          public void commit(Object r) {}

          @Override
          public void rollback(Object r) {}

          @Override
          public void close(Object r) {}
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GatedTool tool = tool(gate, new CallToolResultMapper(McpJsonDefaults.getMapper()));
      CallToolResult result =
          tool.call(
              McpTransportContext.EMPTY,
              GatedServerContract.refund("k-1", 500),
              new Invocation.Transactional<>(
                  "refund_order",
                  noConnection,
                  (request, r) -> {
                    runs.incrementAndGet();
                    return CallToolResult.builder().addTextContent("refunded").build();
                  }));

      assertThat(runs).hasValue(0);
      assertThat(GatedServerContract.error(result))
          .containsEntry("type", McpGateErrors.STORE_UNAVAILABLE);
      assertThat(audit.get(0).attempt()).as("no handler ran").isZero();
    }
  }
}
