package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.Redaction;
import dev.mcpgate.core.hash.CanonicalJson;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What one call can make the adapter hold or do (issue 34, findings 3 and 5): a call with 200,000
 * argument names leaves an audit record within its budget, and a deeply nested argument is refused
 * as {@code arguments_invalid} on a small stack, through the exact-number scan, the hash and either
 * redaction, never a {@link StackOverflowError}.
 */
class ByteBudgetsTest {
  private static final long SMALL_STACK = 256 * 1024;

  private final List<AuditRecord> records = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private McpStatelessServerFeatures.SyncToolSpecification refund(McpGate.Builder builder) {
    McpGate gate =
        builder
            .audit(records::add)
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .build();
    return gate.gate(
        new McpStatelessServerFeatures.SyncToolSpecification(
            new TestTools().refundTool(),
            (ctx, req) ->
                CallToolResult.builder()
                    .addTextContent("refund " + runs.incrementAndGet())
                    .build()),
        ToolPolicy.defaults());
  }

  private static McpGate.Builder gate() {
    return McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build());
  }

  private static CallToolResult call(
      McpStatelessServerFeatures.SyncToolSpecification spec,
      String tenant,
      Map<String, Object> args) {
    Map<String, Object> context = tenant == null ? Map.of() : Map.of("tenant", tenant);
    return spec.callHandler()
        .apply(McpTransportContext.create(context), new CallToolRequest("refund_order", args));
  }

  private static Map<String, Object> manyNames(int n) {
    Map<String, Object> args = new HashMap<>();
    for (int i = 0; i < n; i++) {
      args.put("name_" + i + "_of_a_call_too_wide_to_keep", i);
    }
    args.put("idempotency_key", "k-wide");
    return args;
  }

  private static Object nested(int levels) {
    Object v = "secret-leaf-value";
    for (int i = 0; i < levels; i++) {
      v = i % 2 == 0 ? List.of(v) : Map.of("k", v);
    }
    return v;
  }

  private static Object onSmallStack(Supplier<?> work) throws InterruptedException {
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread t =
        new Thread(
            null,
            () -> {
              try {
                outcome.set(work.get());
              } catch (Throwable e) {
                outcome.set(e);
              }
            },
            "small-stack",
            SMALL_STACK);
    t.start();
    t.join();
    return outcome.get();
  }

  @Test
  void aCallWith200000NamesLeavesARecordWithinTheBudget() {
    for (Redaction redaction : List.of(Redaction.argumentNames(), Redaction.none())) {
      records.clear();
      var spec = refund(gate().auditRedaction(redaction));
      Map<String, Object> wide = manyNames(200_000);

      // no tenant: refused before anything is hashed, and recorded
      CallToolResult anonymous = call(spec, null, wide);
      assertThat(anonymous.isError()).isTrue();
      // a tenant: run (fewer than CanonicalJson.MAX_ELEMENTS members), and recorded
      CallToolResult ran = call(spec, "acme", wide);
      assertThat(ran.isError()).isNotEqualTo(Boolean.TRUE);

      assertThat(records)
          .extracting(AuditRecord::decision)
          .containsExactly(AuditDecision.TENANT_REFUSED, AuditDecision.EXECUTED);
      for (AuditRecord r : records) {
        assertThat(r.arguments())
            .hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS)
            .contains("\u2026[cut: kept ");
        assertThat(textChars(r)).isLessThanOrEqualTo(AuditRecord.MAX_CHARS);
      }
    }
    assertThat(runs).hasValue(2);
  }

  private static long textChars(AuditRecord r) {
    long n = 0;
    for (String s :
        new String[] {
          r.tenant(), r.tool(), r.key(), r.argsHash(), r.arguments(), r.reason(), r.resultSummary()
        }) {
      n += s == null ? 0 : s.length();
    }
    return n;
  }

  @Test
  void aDeepArgumentIsRefusedOnASmallStack() throws Exception {
    for (McpGate.Builder builder :
        List.of(
            gate(),
            gate().auditRedaction(Redaction.none()),
            gate().auditRedaction(Redaction.none()).acceptInexactNumbers())) {
      records.clear();
      var spec = refund(builder);
      Map<String, Object> args = new HashMap<>();
      args.put("order_id", "ord_9f2");
      args.put("amount_cents", 500);
      args.put("deep", nested(100_000));
      args.put("idempotency_key", "k-deep");

      Object outcome = onSmallStack(() -> call(spec, "acme", args));

      assertThat(outcome).isInstanceOf(CallToolResult.class);
      Map<String, Object> error = GatedServerContract.error((CallToolResult) outcome);
      assertThat(error)
          .containsEntry("type", McpGateErrors.ARGUMENTS_INVALID)
          .containsEntry("executed", "no");
      assertThat(error.get("message").toString())
          .contains("$.deep")
          .contains("deeper than " + CanonicalJson.MAX_DEPTH + " levels")
          .doesNotContain("secret");
      // and from an anonymous caller: refused for want of a tenant, and audited all the same
      Object anonymous = onSmallStack(() -> call(spec, null, args));
      assertThat(anonymous).isInstanceOf(CallToolResult.class);
      assertThat(((CallToolResult) anonymous).isError()).isTrue();

      assertThat(records)
          .extracting(AuditRecord::decision)
          .containsExactly(AuditDecision.KEY_REFUSED, AuditDecision.TENANT_REFUSED);
      assertThat(records)
          .allSatisfy(
              r ->
                  assertThat(r.arguments())
                      .hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS));
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void theExactNumberScanStopsWhereTheHashDoes() throws Exception {
    Map<String, Object> deep = Map.of("deep", nested(100_000));
    assertThat(onSmallStack(() -> String.valueOf(ExactNumbers.inexactNumberPath(deep))))
        .isEqualTo("null");
    Map<String, Object> shallow = Map.of("n", List.of(Map.of("price", 1.5)));
    assertThat(ExactNumbers.inexactNumberPath(shallow)).isEqualTo("$.n[0].price");
  }
}
