package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.ToolPolicy;
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

  @Test
  void theSurveyNamesTheHeaderOfAHeaderKeyedTool() {
    SyncToolSpecification refund =
        TrialServer.gate()
            .gate(
                new SyncToolSpecification(
                    TrialServer.writeTool(
                        "refund_order", Map.of("order_id", Map.of("type", "string"))),
                    (ex, req) -> CallToolResult.builder().addTextContent("refunded").build()),
                ToolPolicy.builder().keySources(KeySource.HEADER).build());

    ToolSurvey.Entry entry = ToolSurvey.ofSpecifications(List.of(refund)).entries().get(0);

    assertThat(entry.kind()).isEqualTo(ToolSurvey.Kind.GATED);
    assertThat(entry.detail()).as("the survey's detail").contains("Idempotency-Key");
  }
}
