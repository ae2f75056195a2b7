package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.Redaction;
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
import org.junit.jupiter.api.Test;

/**
 * One audit record per decision, after it, with arguments redacted; a failing sink changes nothing.
 */
class AuditTest {
  private final List<AuditRecord> records = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private McpStatelessServerFeatures.SyncToolSpecification refund(McpGate.Builder builder) {
    McpGate gate = builder.tenantResolver(TenantResolver.fromTransportContext("tenant")).build();
    return gate.gate(
        new McpStatelessServerFeatures.SyncToolSpecification(
            new TestTools().refundTool(),
            (ctx, req) -> {
              if (Integer.valueOf(666).equals(req.arguments().get("amount_cents"))) {
                throw new IllegalStateException("declined");
              }
              return CallToolResult.builder()
                  .addTextContent("refund " + runs.incrementAndGet())
                  .build();
            }),
        ToolPolicy.defaults());
  }

  private static McpGate.Builder gate() {
    return McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build());
  }

  /** A call of refund_order with the tenant in the transport context (null: none). */
  static CallToolResult call(
      McpStatelessServerFeatures.SyncToolSpecification spec,
      String tenant,
      String key,
      Object amount) {
    Map<String, Object> args = new HashMap<>(Map.of("order_id", "ord_9f2", "amount_cents", amount));
    if (key != null) {
      args.put("idempotency_key", key);
    }
    Map<String, Object> context = tenant == null ? Map.of() : Map.of("tenant", tenant);
    return spec.callHandler()
        .apply(McpTransportContext.create(context), new CallToolRequest("refund_order", args));
  }

  @Test
  void eachDecisionIsOneRecordWithArgumentNamesOnly() {
    var spec =
        refund(
            gate()
                .audit(records::add)
                .auditResultSummary(
                    r -> r.content().get(0).toString().contains("refund") ? "ok" : "?"));

    call(spec, "acme", "k-1", 500);
    call(spec, "acme", "k-1", 500);
    call(spec, "acme", "k-1", 900);
    call(spec, "acme", null, 500);
    call(spec, null, "k-2", 500);
    assertThatThrownBy(() -> call(spec, "acme", "k-3", 666)).hasMessage("declined");

    assertThat(records)
        .extracting(AuditRecord::decision)
        .containsExactly(
            AuditDecision.EXECUTED,
            AuditDecision.REPLAYED,
            AuditDecision.CONFLICT,
            AuditDecision.KEY_REFUSED,
            AuditDecision.TENANT_REFUSED,
            AuditDecision.RELEASED);
    AuditRecord executed = records.get(0);
    assertThat(executed.tenant()).isEqualTo("context:acme");
    assertThat(executed.key()).isEqualTo("k-1");
    assertThat(executed.attempt()).isEqualTo(1);
    assertThat(executed.argsHash()).startsWith("v1:");
    assertThat(executed.arguments()).isEqualTo("[amount_cents, idempotency_key, order_id]");
    assertThat(executed.resultSummary()).isEqualTo("ok");
    assertThat(executed.durationMicros()).isPositive();
    assertThat(records.get(1).attempt()).isEqualTo(1);
    assertThat(records.get(1).argsHash()).isEqualTo(executed.argsHash());
    assertThat(records.get(2).argsHash()).isNotEqualTo(executed.argsHash());
    assertThat(records.get(2).reason()).contains("other arguments");
    assertThat(records.get(4).tenant()).isNull();
    assertThat(records).allSatisfy(r -> assertThat(r.arguments()).doesNotContain("ord_9f2"));
  }

  @Test
  void aRedactionHookDecidesWhatIsKept() {
    var spec = refund(gate().audit(records::add).auditRedaction(Redaction.none()));
    call(spec, "acme", "k-1", 500);
    assertThat(records.get(0).arguments()).contains("order_id=ord_9f2");
  }

  @Test
  void aCallWhoseArgumentsHaveNoCanonicalFormIsRecordedWithoutAHash() {
    // refused before the gate (an inexact number), and by the gate's own hash (inexact accepted)
    for (McpGate.Builder builder :
        List.of(gate().audit(records::add), gate().audit(records::add).acceptInexactNumbers())) {
      records.clear();
      var spec = refund(builder);
      Map<String, Object> args =
          new HashMap<>(Map.of("order_id", "ord_9f2", "amount_cents", Double.NaN));
      args.put("idempotency_key", "k-nan");

      CallToolResult r =
          spec.callHandler()
              .apply(
                  McpTransportContext.create(Map.of("tenant", "acme")),
                  new CallToolRequest("refund_order", args));

      assertThat(r.isError()).isTrue();
      assertThat(runs).hasValue(0);
      assertThat(records)
          .singleElement()
          .satisfies(
              rec -> {
                assertThat(rec.argsHash()).isNull();
                assertThat(rec.key()).isEqualTo("k-nan");
              });
    }
  }

  @Test
  void aSinkThatThrowsIsCountedAndTheCallerGetsItsResult() {
    McpGate.Builder builder =
        gate()
            .audit(
                r -> {
                  throw new IllegalStateException("the audit table is gone");
                });
    McpGate mcpGate = builder.tenantResolver(TenantResolver.fromTransportContext("tenant")).build();
    var spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) ->
                    CallToolResult.builder()
                        .addTextContent("refund " + runs.incrementAndGet())
                        .build()),
            ToolPolicy.defaults());

    CallToolResult r = call(spec, "acme", "k-1", 500);

    assertThat(r.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(runs).hasValue(1);
    assertThat(mcpGate.auditFailures()).isEqualTo(1);
  }

  /**
   * The gate's decisions carry its hash; a failure it threw after a claim, the attempt that ran and
   * the hash its key was claimed with; a decision the gate did not make (a claim that failed, a
   * refusal before it) is recorded with what the adapter knew, hashed the same way.
   */
  @Test
  void aDecisionTheGateDidNotMakeIsRecordedWithWhatWasKnown() {
    FlakyStore store = new FlakyStore();
    var spec = refund(McpGate.builder(IdempotencyGate.builder(store).build()).audit(records::add));

    store.claimFails.set(true);
    CallToolResult down = call(spec, "acme", "k-5", 500);
    store.claimFails.set(false);
    call(spec, "acme", "k-5", 500);
    assertThatThrownBy(() -> call(spec, "acme", "k-6", 666)).hasMessage("declined");
    Map<String, Object> inexact = new HashMap<>(Map.of("order_id", "ord_9f2", "amount_cents", 1.5));
    inexact.put("idempotency_key", "k-7");
    spec.callHandler()
        .apply(
            McpTransportContext.create(Map.of("tenant", "acme")),
            new CallToolRequest("refund_order", inexact));

    assertThat(down.isError()).isTrue();
    assertThat(records)
        .extracting(AuditRecord::decision)
        .containsExactly(
            AuditDecision.STORE_UNAVAILABLE,
            AuditDecision.EXECUTED,
            AuditDecision.RELEASED,
            AuditDecision.KEY_REFUSED);
    AuditRecord unavailable = records.get(0);
    AuditRecord executed = records.get(1);
    assertThat(unavailable.tenant()).isEqualTo("context:acme");
    assertThat(unavailable.key()).isEqualTo("k-5");
    assertThat(unavailable.attempt()).isZero();
    assertThat(unavailable.argsHash())
        .as("the adapter's hash of a call the gate threw on is the gate's")
        .startsWith("v1:")
        .isEqualTo(executed.argsHash());
    assertThat(executed.attempt()).isEqualTo(1);
    AuditRecord released = records.get(2);
    assertThat(released.key()).isEqualTo("k-6");
    assertThat(released.reason()).isEqualTo("the handler threw java.lang.IllegalStateException");
    assertThat(released.argsHash()).startsWith("v1:").isNotEqualTo(executed.argsHash());
    assertThat(released.attempt()).as("the attempt that ran and failed").isEqualTo(1);
    assertThat(released.resultSummary()).isNull();
    AuditRecord refused = records.get(3);
    assertThat(refused.key()).isEqualTo("k-7");
    assertThat(refused.reason()).contains("was read as a double");
    assertThat(refused.argsHash()).startsWith("v1:");
  }

  /**
   * A handler whose outcome is unknown is recorded with the attempt that ran and the hash its key
   * was claimed with: the one the gate's refusal of the retry carries.
   */
  @Test
  void aFailureAfterTheClaimIsRecordedWithTheAttemptThatRanAndItsHash() {
    McpGate mcpGate =
        gate()
            .audit(records::add)
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .build();
    var spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) -> {
                  runs.incrementAndGet();
                  throw new OutcomeUnknownException("the payment provider timed out");
                }),
            ToolPolicy.defaults());

    CallToolResult unknown = call(spec, "acme", "k-8", 500);
    CallToolResult retry = call(spec, "acme", "k-8", 500);

    assertThat(unknown.isError()).isTrue();
    assertThat(retry.isError()).isTrue();
    assertThat(runs).hasValue(1);
    assertThat(records)
        .extracting(AuditRecord::decision)
        .containsExactly(AuditDecision.OUTCOME_UNKNOWN, AuditDecision.OUTCOME_UNKNOWN);
    AuditRecord ran = records.get(0);
    AuditRecord refused = records.get(1);
    assertThat(ran.attempt()).as("the attempt whose outcome is unknown").isEqualTo(1);
    assertThat(refused.attempt()).as("the retry ran nothing").isZero();
    assertThat(ran.argsHash()).startsWith("v1:").isEqualTo(refused.argsHash());
  }
}
