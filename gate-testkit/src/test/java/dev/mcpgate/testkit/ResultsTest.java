package dev.mcpgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A replay is the first result but for the gate's marks, whichever marks it carries. */
class ResultsTest {
  private static CallToolResult result(Map<String, Object> meta) {
    return new CallToolResult(List.of(new McpSchema.TextContent("Refunded")), false, null, meta);
  }

  @Test
  void aReplayIsTheSameResultWhicheverTimeItsMarkTells() {
    CallToolResult first = result(Map.of("mine", 1));
    CallToolResult replay =
        result(
            Map.of(
                "mine",
                1,
                McpGateErrors.META_REPLAYED,
                true,
                McpGateErrors.META_FIRST_EXECUTED_AT,
                "2030-01-01T00:00:00Z"));
    CallToolResult settled =
        result(
            Map.of(
                "mine",
                1,
                McpGateErrors.META_REPLAYED,
                true,
                McpGateErrors.META_SETTLED_AT,
                "2030-01-01T00:00:07Z"));

    assertThat(Results.same(first, replay)).isTrue();
    assertThat(Results.same(first, settled)).isTrue();
    assertThat(Results.same(first, result(Map.of("mine", 2)))).isFalse();
  }
}
