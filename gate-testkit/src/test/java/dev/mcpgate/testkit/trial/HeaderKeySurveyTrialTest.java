package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.GateChecks;
import dev.mcpgate.testkit.ToolSurvey;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/testkit.md section 1: the survey's detail of a gated tool says how it is keyed ("key:
 * argument idempotency_key or _meta ...", "key: natural key [...]"). A tool keyed by the HTTP
 * header Idempotency-Key only (KeySource.HEADER, documented in mcp-adapter.md) is listed with the
 * detail "key: " and nothing after it.
 */
class HeaderKeySurveyTrialTest {

  private static SyncToolSpecification refund(KeySource... sources) {
    return TrialServer.gate()
        .gate(
            new SyncToolSpecification(
                TrialServer.writeTool("refund_order", Map.of("order_id", Map.of("type", "string"))),
                (ex, req) -> CallToolResult.builder().addTextContent("refunded").build()),
            ToolPolicy.builder().keySources(sources).build());
  }

  @Test
  void theSurveyNamesTheHeaderOfAHeaderKeyedTool() {
    SyncToolSpecification refund = refund(KeySource.HEADER);

    ToolSurvey.Entry entry = ToolSurvey.ofSpecifications(List.of(refund)).entries().get(0);

    assertThat(entry.kind()).isEqualTo(ToolSurvey.Kind.GATED);
    assertThat(entry.detail()).as("the survey's detail").contains("Idempotency-Key");
  }

  /**
   * docs/testkit.md: the checks send no header, so a tool keyed by the header alone fails them,
   * refused idempotency_key_required (never a pass); with the key accepted in _meta too, they run.
   */
  @Test
  void theChecksOfAToolKeyedByTheHeaderAloneFailAndPassWithMetaToo() {
    try (McpHarness harness = McpHarness.stdio(List.of(refund(KeySource.HEADER)))) {
      assertThatThrownBy(() -> GateChecks.of(harness.client(null)).runAll())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("idempotency_key_required");
    }
    try (McpHarness harness = McpHarness.stdio(List.of(refund(KeySource.HEADER, KeySource.META)))) {
      GateChecks.of(harness.client(null)).runAll();
    }
  }
}
