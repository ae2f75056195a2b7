package dev.mcpgate.client;

import static java.util.Objects.requireNonNull;

import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A typed refusal of an MCP Gate server: a {@code CallToolResult} with {@code isError: true} and
 * {@code structuredContent.error} holding {@code type}, {@code message}, {@code executed} and
 * {@code retry_with_same_key} (and {@code retry_after_ms} when the server asks for a wait).
 *
 * @param type the error type, e.g. {@code idempotency_key_in_progress}, {@code
 *     idempotency_outcome_unknown}, {@code idempotency_key_conflict}
 * @param message the server's sentence
 * @param executed what the server says of the effect
 * @param retryWithSameKey whether the server says to send the same call with the same key again
 * @param retryAfter how long the server asks to wait before that; {@link Duration#ZERO} when it
 *     does not say
 */
public record GateError(
    String type, String message, Executed executed, boolean retryWithSameKey, Duration retryAfter) {

  /** The field of {@code structuredContent} that holds the error. */
  static final String ERROR = "error";

  static final String EXECUTED = "executed";
  static final String RETRY_WITH_SAME_KEY = "retry_with_same_key";
  static final String RETRY_AFTER_MS = "retry_after_ms";

  /**
   * @throws NullPointerException if a component is null
   * @throws IllegalArgumentException if {@code retryAfter} is negative
   */
  public GateError {
    requireNonNull(type, "type must not be null");
    requireNonNull(message, "message must not be null");
    requireNonNull(executed, "executed must not be null");
    requireNonNull(retryAfter, "retryAfter must not be null");
    if (retryAfter.isNegative()) {
      throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
    }
  }

  /**
   * Reads the typed refusal out of a result, exactly as an MCP Gate server writes it ({@code
   * dev.mcpgate.mcp.McpGateErrors}).
   *
   * @param result a tool call's result
   * @return the refusal, or empty when the result is not one: not an error, or an error of the
   *     tool's own (no {@code structuredContent.error} with a known {@code executed} and a boolean
   *     {@code retry_with_same_key})
   */
  public static Optional<GateError> of(CallToolResult result) {
    if (result == null
        || !Boolean.TRUE.equals(result.isError())
        || !(result.structuredContent() instanceof Map<?, ?> content)
        || !(content.get(ERROR) instanceof Map<?, ?> error)) {
      return Optional.empty();
    }
    Executed executed = Executed.fromWire(error.get(EXECUTED));
    if (executed == null || !(error.get(RETRY_WITH_SAME_KEY) instanceof Boolean retry)) {
      return Optional.empty();
    }
    Duration after = Duration.ZERO;
    if (error.get(RETRY_AFTER_MS) instanceof Number ms && ms.longValue() > 0) {
      after = Duration.ofMillis(ms.longValue());
    }
    return Optional.of(
        new GateError(
            error.get("type") instanceof String t ? t : "",
            error.get("message") instanceof String m ? m : "",
            executed,
            retry,
            after));
  }
}
