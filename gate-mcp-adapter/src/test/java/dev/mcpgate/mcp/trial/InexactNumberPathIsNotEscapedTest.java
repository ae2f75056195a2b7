package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call whose number arrived as a double is refused {@code arguments_invalid} naming the number's
 * path; the same path goes into the audit reason and the operator's WARN line (GatedTool
 * warnInexact: "refused a call ... whose number at {} arrived as a double").
 *
 * <p>Expected: the path written as gate-core writes one, a name that is not a plain identifier
 * quoted with its control characters escaped ({@code $["x\nFORGED"]}). What happens:
 * ExactNumbers.inexactNumberPath appends {@code "." + name} raw, so an anonymous caller's argument
 * named {@code "x\n... WARN forged line"} puts a newline of its choice into the log line (a forged
 * log entry), the audit reason and the answer to the model.
 */
class InexactNumberPathIsNotEscapedTest {
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
  private final List<AuditRecord> audit = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    gate.close();
  }

  @Test
  void aControlCharacterInTheNameOfAnInexactNumberIsEscapedInItsPath() {
    McpSchema.Tool refund =
        McpSchema.Tool.builder()
            .name("refund")
            .description("Refund an order.")
            .inputSchema(McpJsonDefaults.getMapper(), "{\"type\":\"object\"}")
            .build();
    McpGate mcpGate =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("acme"))
            .audit(audit::add)
            .build();
    var gated =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                refund,
                (context, request) -> CallToolResult.builder().addTextContent("refunded").build()),
            ToolPolicy.defaults());
    Map<String, Object> arguments = new HashMap<>();
    arguments.put("idempotency_key", "k1");
    arguments.put("x\n[main] WARN dev.mcpgate - forged line", 1.5);

    CallToolResult answer =
        gated
            .callHandler()
            .apply(McpTransportContext.EMPTY, new CallToolRequest("refund", arguments));

    assertThat(answer.structuredContent().toString()).contains("arguments_invalid");
    assertThat(answer.content().toString()).as("the answer to the model").doesNotContain("\n");
    assertThat(audit).hasSize(1);
    assertThat(audit.get(0).reason())
        .as("the audit reason, the same text as the operator's WARN line")
        .doesNotContain("\n");
  }
}
