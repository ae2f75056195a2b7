package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.RefusalReason;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sentences a model reads for each refusal: one error type, and only what is known. */
class ModelMessagesTest {
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k-1");

  private static CallToolResult refused(RefusalReason reason, Duration retryAfter) {
    return ModelMessages.of(new GateResult.Refused<>(ID, reason, retryAfter, "for operators"));
  }

  private static String text(CallToolResult result) {
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> error(CallToolResult result) {
    return (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
  }

  @Test
  void aRunningHolderIsStillRunningAndAStoppedOneIsSaidToHaveStopped() {
    CallToolResult running = refused(RefusalReason.IN_PROGRESS, Duration.ofMillis(1500));
    CallToolResult stopped = refused(RefusalReason.HOLDER_UNRESPONSIVE, Duration.ofMillis(700));

    assertThat(running.isError()).isTrue();
    assertThat(error(running)).containsEntry("type", McpGateErrors.KEY_IN_PROGRESS)
        .containsEntry("retry_after_ms", 1500L);
    assertThat(text(running)).contains("is still running", "after 1500 ms")
        .doesNotContain("stopped");

    assertThat(stopped.isError()).isTrue();
    assertThat(error(stopped)).containsEntry("type", McpGateErrors.KEY_IN_PROGRESS)
        .containsEntry("retry_after_ms", 700L);
    assertThat(text(stopped)).contains("stopped responding", "after 700 ms", "same key",
        "Do not use a new key").doesNotContain("still running");
  }

  @Test
  void everyRefusalReasonHasItsOwnSentence() {
    for (RefusalReason reason : RefusalReason.values()) {
      CallToolResult result = refused(reason, Duration.ofMillis(10));
      assertThat(result.isError()).as(reason.name()).isTrue();
      assertThat(text(result)).as(reason.name()).isNotBlank().doesNotContain("for operators");
    }
  }
}
