package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Builders, keys and answers: bad values are refused with messages that name them. */
class ConfigurationTest {

  @Test
  void badRetryValuesAreRefusedByName() {
    RetryPolicy.Builder b = RetryPolicy.builder();
    assertThatThrownBy(() -> b.maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be at least 1, was 0");
    assertThatThrownBy(() -> b.initialBackoff(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("initialBackoff must be positive, was PT0S");
    assertThatThrownBy(() -> b.initialBackoff(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("initialBackoff must not be null");
    assertThatThrownBy(() -> b.maxBackoff(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxBackoff must be positive");
    assertThatThrownBy(() -> b.deadline(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("deadline must be positive");
    assertThatThrownBy(() -> b.multiplier(0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiplier")
        .hasMessageContaining("0.5");
    assertThatThrownBy(() -> b.multiplier(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> b.multiplier(Double.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> b.jitter(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jitter must be from 0 to 1, was 1.5");
    assertThatThrownBy(() -> b.jitter(-0.1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jitter");
    assertThatThrownBy(
            () ->
                RetryPolicy.builder()
                    .initialBackoff(Duration.ofSeconds(2))
                    .maxBackoff(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBackoff must be at least initialBackoff (PT2S), was PT1S");
  }

  @Test
  void theDefaultsAreTheDocumentedOnes() {
    assertThat(RetryPolicy.defaults())
        .isEqualTo(
            new RetryPolicy(
                5, Duration.ofMillis(200), Duration.ofSeconds(5), 2, 0.2, Duration.ofSeconds(60)));
  }

  @Test
  void backOffGrowsUpToItsCapAndJitterOnlyShortensIt() {
    RetryPolicy p =
        RetryPolicy.builder()
            .initialBackoff(Duration.ofMillis(100))
            .maxBackoff(Duration.ofMillis(350))
            .multiplier(2)
            .jitter(0.5)
            .build();
    assertThat(p.backoff(0, 0)).isEqualTo(Duration.ofMillis(100));
    assertThat(p.backoff(1, 0)).isEqualTo(Duration.ofMillis(200));
    assertThat(p.backoff(2, 0)).isEqualTo(Duration.ofMillis(350));
    assertThat(p.backoff(40, 0)).isEqualTo(Duration.ofMillis(350));
    assertThat(p.backoff(0, 0.999)).isBetween(Duration.ofMillis(50), Duration.ofMillis(51));
  }

  @Test
  void badClientValuesAreRefusedByName() {
    assertThatThrownBy(() -> IdempotentCalls.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("client must not be null");
    assertThatThrownBy(() -> AsyncIdempotentCalls.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("client must not be null");
    assertThatThrownBy(() -> ToolKeys.checkKeyArgument(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keyArgument must not be blank, was \" \"");
    assertThatThrownBy(() -> ToolKeys.checkKeyArgument(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keyArgument must not be null");
  }

  @Test
  void anIntentKeyHoldsTheServersKeyRules() {
    assertThat(IntentKey.of("order-42/refund #1").value()).isEqualTo("order-42/refund #1");
    assertThat(IntentKey.random().value()).hasSize(36);
    assertThat(IntentKey.random()).isNotEqualTo(IntentKey.random());
    assertThat(IntentKey.of("x".repeat(255)).value()).hasSize(255);
    assertThatThrownBy(() -> IntentKey.of(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an intent key must be 1 to 255 characters, was 0");
    assertThatThrownBy(() -> IntentKey.of("x".repeat(256)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an intent key must be 1 to 255 characters, was 256");
    assertThatThrownBy(() -> IntentKey.of("   "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an intent key must not be blank");
    assertThatThrownBy(() -> IntentKey.of("a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("control characters")
        .hasMessageContaining("U+000A");
    assertThatThrownBy(() -> IntentKey.of("a\uD800b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate");
    assertThatThrownBy(() -> IntentKey.of("\uDC00"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate");
    assertThat(IntentKey.of("\uD83D\uDE00").value()).hasSize(2);
    assertThat(IntentKey.of("\uD83D\uDE00".repeat(255)).value())
        .as("255 characters outside the BMP: 510 UTF-16 units, as the server counts them")
        .hasSize(510);
    assertThatThrownBy(() -> IntentKey.of("\uD83D\uDE00".repeat(256)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an intent key must be 1 to 255 characters, was 256");
    assertThatThrownBy(() -> IntentKey.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("value must not be null");
  }

  @Test
  void theClientReadsTheNamesTheServerWrites() {
    assertThat(IdempotentCalls.META_KEY).isEqualTo(McpGateErrors.META_KEY);
    assertThat(IdempotentCalls.META_REPLAYED).isEqualTo(McpGateErrors.META_REPLAYED);
    assertThat(IdempotentCalls.DEFAULT_KEY_ARGUMENT).isEqualTo(ToolPolicy.DEFAULT_KEY_ARGUMENT);
    assertThat(KeyPlacement.META_TOOL).isEqualTo(McpGateErrors.META_TOOL);
    assertThat(GateError.EXECUTED).isEqualTo(McpGateErrors.EXECUTED);
    assertThat(GateError.RETRY_WITH_SAME_KEY).isEqualTo(McpGateErrors.RETRY_WITH_SAME_KEY);
    assertThat(GateError.RETRY_AFTER_MS).isEqualTo(McpGateErrors.RETRY_AFTER_MS);
    assertThat(Executed.fromWire(McpGateErrors.EXECUTED_NO)).isEqualTo(Executed.NO);
    assertThat(Executed.fromWire(McpGateErrors.EXECUTED_YES)).isEqualTo(Executed.YES);
    assertThat(Executed.fromWire(McpGateErrors.EXECUTED_UNKNOWN)).isEqualTo(Executed.UNKNOWN);
    assertThat(IntentKey.MAX_LENGTH).isEqualTo(ClaimId.MAX_LENGTH);
  }

  @Test
  void onlyTheGatesTypedRefusalsAreReadAsRefusals() {
    CallToolResult typed =
        CallToolResult.builder()
            .isError(true)
            .addTextContent("busy")
            .structuredContent(
                Map.of(
                    "error",
                    Map.of(
                        "type", "idempotency_key_in_progress",
                        "message", "busy",
                        "executed", "unknown",
                        "retry_with_same_key", true,
                        "retry_after_ms", 250)))
            .build();
    assertThat(GateError.of(typed))
        .contains(
            new GateError(
                "idempotency_key_in_progress",
                "busy",
                Executed.UNKNOWN,
                true,
                Duration.ofMillis(250)));
    CallToolResult toolsOwnError =
        CallToolResult.builder()
            .isError(true)
            .addTextContent("no such order")
            .structuredContent(Map.of("error", Map.of("type", "not_found")))
            .build();
    assertThat(GateError.of(toolsOwnError)).isEmpty();
    CallToolResult notAnError =
        CallToolResult.builder()
            .addTextContent("ok")
            .structuredContent(
                Map.of("error", Map.of("executed", "no", "retry_with_same_key", false)))
            .build();
    assertThat(GateError.of(notAnError)).isEmpty();
    CallToolResult oddWord =
        CallToolResult.builder()
            .isError(true)
            .addTextContent("?")
            .structuredContent(
                Map.of("error", Map.of("executed", "maybe", "retry_with_same_key", true)))
            .build();
    assertThat(GateError.of(oddWord)).isEmpty();
  }
}
