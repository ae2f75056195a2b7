package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * A handler's failures that are none of the gate's answers (an {@code Error}, an exception of the
 * gate's own type thrown by the handler) are audited as what they were: the attempt that ran, and
 * whether the gate released the key or fenced it. Found by a review; each failed before its fix.
 */
class AuditAfterClaimTest {
  private final List<AuditRecord> records = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private McpStatelessServerFeatures.SyncToolSpecification spec(
      BiFunction<McpTransportContext, CallToolRequest, CallToolResult> handler) {
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .audit(records::add)
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .build();
    return mcpGate.gate(
        new McpStatelessServerFeatures.SyncToolSpecification(new TestTools().refundTool(), handler),
        ToolPolicy.defaults());
  }

  private static CallToolResult call(
      McpStatelessServerFeatures.SyncToolSpecification spec, String key) {
    Map<String, Object> args =
        new HashMap<>(Map.of("order_id", "ord_9f2", "amount_cents", 500, "idempotency_key", key));
    return spec.callHandler()
        .apply(
            McpTransportContext.create(Map.of("tenant", "acme")),
            new CallToolRequest("refund_order", args));
  }

  @Test
  void aHandlerThatThrowsAnErrorIsRecordedWithTheAttemptThatRan() {
    var spec =
        spec(
            (ctx, req) -> {
              runs.incrementAndGet();
              throw new AssertionError("the handler's own check failed");
            });

    assertThatThrownBy(() -> call(spec, "k-err")).isInstanceOf(AssertionError.class);

    assertThat(runs).hasValue(1);
    AuditRecord rec = records.get(0);
    assertThat(rec.decision()).isEqualTo(AuditDecision.RELEASED);
    assertThat(rec.attempt()).as("the attempt that ran and failed").isEqualTo(1);
    assertThat(rec.reason()).isEqualTo("the handler threw java.lang.AssertionError");
  }

  /**
   * An Error whose cause says the handler was interrupted: the gate fences the key as unknown (a
   * retry is refused, never run), so the audit must not say it was released.
   */
  @Test
  void anInterruptedHandlerThatThrowsAnErrorIsNotRecordedAsReleased() {
    var spec =
        spec(
            (ctx, req) -> {
              runs.incrementAndGet();
              throw new AssertionError("cancelled", new InterruptedException());
            });

    assertThatThrownBy(() -> call(spec, "k-int")).isInstanceOf(AssertionError.class);
    CallToolResult retry = call(spec, "k-int");

    assertThat(runs).hasValue(1);
    assertThat(retry.isError()).isTrue();
    assertThat(records)
        .extracting(AuditRecord::decision)
        .as("the first call fenced the key; the retry is refused as unknown")
        .containsExactly(AuditDecision.OUTCOME_UNKNOWN, AuditDecision.OUTCOME_UNKNOWN);
    assertThat(records.get(0).attempt()).isEqualTo(1);
  }

  /**
   * A handler that throws InvalidArgumentsException (a nested gate call on unhashable arguments)
   * ran and was released: not a refusal of the call's key, and the model is not told its arguments
   * were invalid.
   */
  @Test
  void aHandlerThatThrowsInvalidArgumentsIsRecordedAsARunThatWasReleased() {
    var spec =
        spec(
            (ctx, req) -> {
              runs.incrementAndGet();
              throw new InvalidArgumentsException("$.items[0].price is NaN");
            });

    assertThatThrownBy(() -> call(spec, "k-inv")).isInstanceOf(InvalidArgumentsException.class);

    assertThat(runs).hasValue(1);
    AuditRecord rec = records.get(0);
    assertThat(rec.attempt()).as("the handler ran").isEqualTo(1);
    assertThat(rec.decision()).isEqualTo(AuditDecision.RELEASED);
  }

  /** An authorizer that throws: nothing was claimed or run, so the audit must not say released. */
  @Test
  void anAuthorizerThatThrowsIsRecordedAsAFailureBeforeAnyHandlerRan() {
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .audit(records::add)
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .authorizer(
                (tenant, context, request) -> {
                  throw new IllegalStateException("the policy service is down");
                })
            .build();
    var spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) -> {
                  runs.incrementAndGet();
                  return CallToolResult.builder().addTextContent("refunded").build();
                }),
            ToolPolicy.defaults());

    CallToolResult answer = call(spec, "k-auth");
    assertThat(answer.isError()).isTrue();
    assertThat(answer.structuredContent().toString())
        .as("our fixed answer, not the hook's message")
        .contains(McpGateErrors.INTERNAL_ERROR, "executed=no")
        .doesNotContain("policy service");

    assertThat(runs).hasValue(0);
    AuditRecord rec = records.get(0);
    assertThat(rec.decision()).isEqualTo(AuditDecision.FAILED);
    assertThat(rec.attempt()).isZero();
    assertThat(rec.reason())
        .isEqualTo("failed before any handler ran: java.lang.IllegalStateException");
  }

  /** A closed gate refusing the call: no handler ran, and the model is told nothing took effect. */
  @Test
  void aClosedGateIsRecordedAsAFailureThatRanNothing() {
    IdempotencyGate gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    McpGate mcpGate =
        McpGate.builder(gate)
            .audit(records::add)
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .build();
    var spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) -> {
                  runs.incrementAndGet();
                  return CallToolResult.builder().addTextContent("refunded").build();
                }),
            ToolPolicy.defaults());
    gate.close();

    CallToolResult answer = call(spec, "k-closed");
    assertThat(answer.structuredContent().toString())
        .contains(McpGateErrors.STORE_UNAVAILABLE, "executed=no")
        .doesNotContain("closed");

    assertThat(runs).hasValue(0);
    AuditRecord rec = records.get(0);
    assertThat(rec.decision()).isEqualTo(AuditDecision.FAILED);
    assertThat(rec.attempt()).isZero();
    assertThat(rec.key()).isEqualTo("k-closed");
  }
}
