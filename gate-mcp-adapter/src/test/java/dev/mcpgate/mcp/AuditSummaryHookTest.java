package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * docs/operations.md's audit example sets {@code .auditResultSummary(r -> r.isError() ? "error" :
 * "ok")}. A tool whose result leaves isError unset (null: the SDK's constructor, a result built
 * without it) makes that hook throw a NullPointerException, and the adapter then drops the whole
 * record of the call, an EXECUTED refund included: only a WARN line and auditFailures() say so. A
 * summary hook's failure should cost the summary, not the record. Found in the operations newcomer
 * trial (PostgreSQL: no row for an executed call and its replay). A failing hook now costs only its
 * own field, which notes the failure; a failing redaction never writes the raw arguments.
 */
class AuditSummaryHookTest {
  @Test
  void aSummaryHookThatThrowsDoesNotLoseTheRecordOfAnExecutedCall() {
    List<AuditRecord> records = new CopyOnWriteArrayList<>();
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .audit(records::add)
            .auditResultSummary(r -> r.isError() ? "error" : "ok") // as the docs show it
            .build();
    var spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) ->
                    new CallToolResult(List.of(new TextContent("refunded")), null, null, null)),
            ToolPolicy.defaults());

    CallToolResult result = AuditTest.call(spec, "acme", "k-1", 500);

    assertThat(result.content()).hasSize(1);
    assertThat(mcpGate.auditFailures()).as("records dropped").isZero();
    assertThat(records).extracting(AuditRecord::decision).containsExactly(AuditDecision.EXECUTED);
    assertThat(records.get(0).resultSummary()).isEqualTo("(summary failed: NullPointerException)");
  }

  @Test
  void aRedactionThatThrowsCostsTheArgumentsNotTheRecordAndNeverWritesThemRaw() {
    List<AuditRecord> records = new CopyOnWriteArrayList<>();
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .audit(records::add)
            .auditRedaction(
                (tool, args) -> {
                  throw new IllegalStateException("no rule for " + tool);
                })
            .build();
    var spec =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) ->
                    new CallToolResult(List.of(new TextContent("refunded")), false, null, null)),
            ToolPolicy.defaults());

    AuditTest.call(spec, "acme", "k-2", 700);

    assertThat(mcpGate.auditFailures()).as("records dropped").isZero();
    assertThat(records).extracting(AuditRecord::decision).containsExactly(AuditDecision.EXECUTED);
    assertThat(records.get(0).arguments())
        .isEqualTo("(redaction failed: IllegalStateException)")
        .doesNotContain("700");
  }
}
