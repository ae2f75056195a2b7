package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.testkit.RetryCheck;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * docs/testkit.md: "Every answer must equal the first (content, structured content, isError and
 * {@code _meta}, less the replay marks)"; a failure says "the retry returned a different result
 * than the first call: it ran again". docs/mcp-adapter.md documents that a replay keeps a decimal's
 * value but not always its spelling, and that {@code -0.0} comes back as {@code 0.0}. A correctly
 * gated tool whose structured content holds such a number runs once, its retry carries the replay
 * mark, and yet the kit must not say it "ran again".
 */
class ReplayNumbersTrialTest {

  private static void assertRetryCheckPassesAndToolRanOnce(Object value) {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification quote =
        new SyncToolSpecification(
            TrialServer.writeTool("book_adjustment", Map.of("order_id", Map.of("type", "string"))),
            (ex, req) -> {
              runs.incrementAndGet();
              return CallToolResult.builder()
                  .addTextContent("booked")
                  .structuredContent(Map.of("adjustment", value))
                  .build();
            });
    try (McpHarness harness =
        McpHarness.stdio(List.of(TrialServer.gate().gate(quote, ToolPolicy.defaults())))) {
      RetryCheck check =
          RetryCheck.of(harness.client(null))
              .probe("runs", runs::get)
              .expectFirstCallChange("runs", 1);
      try {
        check.assertSafeToRetry(
            new CallToolRequest(
                "book_adjustment", Map.of("order_id", "o-1", "idempotency_key", "k-1")));
      } catch (AssertionFailedError e) {
        throw new AssertionError(
            "the kit failed a gated tool that ran "
                + runs.get()
                + " time(s), saying: "
                + e.getMessage(),
            e);
      }
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void aGatedToolAnsweringNegativeZeroPassesTheRetryCheck() {
    assertRetryCheckPassesAndToolRanOnce(-0.0);
  }

  @Test
  void aGatedToolAnsweringALargeDoublePassesTheRetryCheck() {
    assertRetryCheckPassesAndToolRanOnce(1e20);
  }

  @Test
  void aGatedToolAnsweringASmallDecimalPassesTheRetryCheck() {
    assertRetryCheckPassesAndToolRanOnce(1.0e-5);
  }

  @Test
  void aGatedToolAnsweringAWholeDoublePassesTheRetryCheck() {
    assertRetryCheckPassesAndToolRanOnce(2.0);
  }
}
