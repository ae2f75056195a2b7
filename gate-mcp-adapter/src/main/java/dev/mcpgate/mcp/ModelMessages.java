package dev.mcpgate.mcp;

import static dev.mcpgate.core.internal.Checks.quote;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.ResultTooLargeException;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every sentence a model reads from the gate, in one place: the refusals (as {@code isError}
 * results with {@code structuredContent.error.type}), the sentence a gated tool's description
 * gains, and the marks of a replay. The core's messages are for Java callers and operators; these
 * are for the model that called the tool.
 */
final class ModelMessages {
  /** The description of the key argument in a gated tool's input schema. */
  static final String KEY_ARGUMENT_DESCRIPTION = "Idempotency key: a new unique value (for"
      + " example a UUID) for each new request; the same value again when retrying that request.";

  private ModelMessages() {}

  /** @return the sentence a gated tool's description gains: how to retry it safely */
  static String retrySentence(ToolPolicy policy) {
    if (policy.keySources().contains(KeySource.ARGUMENT) && policy.keyDescription() != null) {
      return "If this call fails or times out, send it again with the same arguments: it then"
          + " returns the first result instead of acting twice.";
    }
    if (policy.keySources().contains(KeySource.ARGUMENT)) {
      return "If this call fails or times out, retry it with the same " + policy.keyArgument()
          + " and the same arguments: it then returns the first result instead of acting twice."
          + " Use a new " + policy.keyArgument() + " only for a new request.";
    }
    if (policy.keySources().contains(KeySource.NATURAL)) {
      return "Calls with the same " + String.join(", ", policy.naturalKey())
          + " are done once: a retry returns the first result instead of acting twice.";
    }
    return "Retried calls with the same idempotency key are done once.";
  }

  static CallToolResult error(String type, String message, Duration retryAfter) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("type", type);
    error.put("message", message);
    if (retryAfter != null) {
      error.put("retry_after_ms", retryAfter.toMillis());
    }
    return CallToolResult.builder()
        .isError(true)
        .addTextContent(message)
        .structuredContent(Map.of("error", error))
        .build();
  }

  /** The gate refused the call: one error type and one sentence per reason. */
  static CallToolResult of(GateResult.Refused<?> refused) {
    ClaimId id = refused.id();
    long ms = refused.retryAfter().toMillis();
    return switch (refused.reason()) {
      case CONFLICT -> error(McpGateErrors.KEY_CONFLICT, "The idempotency key " + quote(id.key())
          + " was already used for a call to " + id.tool() + " with different arguments. Use a"
          + " new key for a new request, or resend the original arguments to get the original"
          + " result.", null);
      case IN_PROGRESS -> error(McpGateErrors.KEY_IN_PROGRESS, "A call to " + id.tool()
          + " with idempotency key " + quote(id.key()) + " is still running. Retry the same call"
          + " with the same key after " + ms + " ms to get its result; do not use a new key.",
          refused.retryAfter());
      case HOLDER_UNRESPONSIVE -> error(McpGateErrors.KEY_IN_PROGRESS, "An earlier attempt of"
          + " this call to " + id.tool() + " with idempotency key " + quote(id.key()) + " stopped"
          + " responding before it finished. Retry the same call with the same key after " + ms
          + " ms: it then runs again in place of the earlier attempt. Do not use a new key.",
          refused.retryAfter());
      case OUTCOME_UNKNOWN -> error(McpGateErrors.OUTCOME_UNKNOWN, "An earlier attempt of this"
          + " call to " + id.tool() + " ended without knowing whether it took effect, so it is"
          + " not run again now. Retry with the same key after " + ms + " ms, or check whether"
          + " the effect happened.", refused.retryAfter());
      case RESULT_NOT_STORED -> error(McpGateErrors.OUTCOME_UNKNOWN, "This call to " + id.tool()
          + " ran before, but its result was too large to keep. It will not run again with this"
          + " key; check its effect directly.", null);
    };
  }

  static CallToolResult tenantUnknown() {
    return error(McpGateErrors.TENANT_UNKNOWN, "The server could not tell which account this"
        + " call belongs to, so it did not run it. This is a server configuration problem;"
        + " retrying will not help until it is fixed.", null);
  }

  static CallToolResult tenantInvalid(InvalidIdempotencyKeyException e) {
    return error(McpGateErrors.TENANT_INVALID, "The server could not use the account this call"
        + " belongs to (" + e.getMessage() + "), so it did not run it. This is a server"
        + " configuration problem; retrying will not help until it is fixed.", null);
  }

  static CallToolResult forbidden(String refusal) {
    return error(McpGateErrors.FORBIDDEN, refusal, null);
  }

  static CallToolResult keyRequired(ToolPolicy policy) {
    String message;
    if (policy.keySources().contains(KeySource.ARGUMENT)) {
      message = "This tool changes state, so it needs an idempotency key and was not run. Call it"
          + " again with the argument " + policy.keyArgument() + " set to a new unique value"
          + " (for example a UUID), and reuse that value if you have to retry.";
    } else if (policy.keySources().contains(KeySource.NATURAL)) {
      message = "This tool needs the arguments " + String.join(", ", policy.naturalKey())
          + " to tell a retry from a new request, and was not run. Call it again with them.";
    } else if (policy.keySources().contains(KeySource.META)) {
      message = "This tool needs an idempotency key in _meta " + McpGateErrors.META_KEY
          + " and was not run.";
    } else {
      message = "This tool needs an idempotency key in the " + KeySource.HEADER_CONTEXT_KEY
          + " header and was not run.";
    }
    return error(McpGateErrors.KEY_REQUIRED, message, null);
  }

  static CallToolResult keyInvalid(InvalidIdempotencyKeyException e) {
    return error(McpGateErrors.KEY_INVALID, "The idempotency key is not valid: " + e.getMessage()
        + ". Nothing was run. Send one key of 1 to 255 characters, valid Unicode, without"
        + " control characters.", null);
  }

  static CallToolResult storeUnavailable() {
    return error(McpGateErrors.STORE_UNAVAILABLE, "The call was not run because the idempotency"
        + " store could not be reached. It is safe to retry the same call with the same key"
        + " later.", null);
  }

  static CallToolResult rolledBack() {
    return error(McpGateErrors.STORE_UNAVAILABLE, "The call's changes were rolled back because"
        + " saving them failed; nothing took effect. It is safe to retry the same call with the"
        + " same key.", null);
  }

  static CallToolResult outcomeNotKnown() {
    return error(McpGateErrors.OUTCOME_UNKNOWN, "The call ran, but whether its changes were"
        + " saved could not be checked. Do not send it as a new request: retry the same call"
        + " with the same key later, and it will either return the saved result or run again.",
        null);
  }

  static CallToolResult argumentsInvalid(InvalidArgumentsException e) {
    return error(McpGateErrors.ARGUMENTS_INVALID, "The arguments cannot be compared for"
        + " retries: " + e.getMessage() + ". Nothing was run; send the call again with valid"
        + " arguments.", null);
  }

  static CallToolResult resultTooLarge(ResultTooLargeException e) {
    return error(McpGateErrors.OUTCOME_UNKNOWN, "The call ran, but its result was too large to"
        + " keep for retries (" + e.size() + " bytes). It will not run again with this key; check"
        + " its effect before sending a new request.", null);
  }

  /** The stored result, unchanged but for two {@code _meta} entries that mark it as a replay. */
  static CallToolResult markReplay(CallToolResult stored, Instant firstExecutedAt) {
    Map<String, Object> meta = stored.meta() == null
        ? new LinkedHashMap<>() : new LinkedHashMap<>(stored.meta());
    meta.put(McpGateErrors.META_REPLAYED, true);
    meta.put(McpGateErrors.META_FIRST_EXECUTED_AT, firstExecutedAt.toString());
    return new CallToolResult(stored.content(), stored.isError(), stored.structuredContent(), meta);
  }
}
