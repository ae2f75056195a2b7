package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.GateResult.Effect;
import dev.mcpgate.core.KeyDigest;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultTooLargeException;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every sentence a model reads from the gate but the refusals before it ({@link
 * RejectionMessages}): the gate's refusals and failures (as {@code isError} results with {@code
 * structuredContent.error.type}), the sentence a gated tool's description gains, and the marks of a
 * replay. The core's messages are for Java callers and operators; these are for the model that
 * called the tool.
 */
final class ModelMessages {
  /** The description of the key argument in a gated tool's input schema. */
  static final String KEY_ARGUMENT_DESCRIPTION =
      "Idempotency key: a new unique value (for example a UUID) for each new request; the same"
          + " value again when retrying that request.";

  private ModelMessages() {}

  /**
   * @return the sentence a gated tool's description gains: how to retry it safely
   */
  static String retrySentence(ToolPolicy policy) {
    if (policy.keySources().contains(KeySource.ARGUMENT) && policy.keyDescription() != null) {
      return "If this call fails or times out, send it again with the same arguments: it then"
          + " returns the first result instead of acting twice.";
    }
    if (policy.keySources().contains(KeySource.ARGUMENT)) {
      return "If this call fails or times out, retry it with the same "
          + policy.keyArgument()
          + " and the same arguments: it then returns the first result instead of acting twice."
          + " Use a new "
          + policy.keyArgument()
          + " only for a new request.";
    }
    if (policy.keySources().contains(KeySource.NATURAL)) {
      return "Calls with the same "
          + String.join(", ", policy.naturalKey())
          + " are done once: a retry returns the first result instead of acting twice.";
    }
    return "Retried calls with the same idempotency key are done once.";
  }

  /**
   * @return what {@code structuredContent.error.executed} says of {@code effect}
   */
  static String wire(Effect effect) {
    return switch (effect) {
      case NO -> McpGateErrors.EXECUTED_NO;
      case YES -> McpGateErrors.EXECUTED_YES;
      case UNKNOWN -> McpGateErrors.EXECUTED_UNKNOWN;
    };
  }

  /**
   * @param executed whether the call took effect
   * @param retrySameKey whether the same call with the same key, sent again (after retryAfter), is
   *     safe and gets an answer
   * @param retryAfter how long to wait first, or null
   */
  static CallToolResult error(
      String type, Effect executed, boolean retrySameKey, String message, Duration retryAfter) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("type", type);
    error.put("message", message);
    error.put(McpGateErrors.EXECUTED, wire(executed));
    error.put(McpGateErrors.RETRY_WITH_SAME_KEY, retrySameKey);
    if (retryAfter != null) {
      error.put(McpGateErrors.RETRY_AFTER_MS, retryAfter.toMillis());
    }
    return CallToolResult.builder()
        .isError(true)
        .addTextContent(message)
        .structuredContent(Map.of("error", error))
        .build();
  }

  /** A refusal before anything ran, that the same call with the same key would meet again. */
  static CallToolResult notRun(String type, String message) {
    return error(type, Effect.NO, false, message, null);
  }

  /**
   * @param keySource where the call's key came from ({@code natural}: made from its arguments)
   * @return "idempotency key "k1"", or, for a key stored as its digest (a natural key: argument
   *     values that may be personal data; a client's key under {@code digestAllKeys}), words that
   *     quote neither the digest nor the key, and say it was made from the arguments only when it
   *     was
   */
  static String keyOf(ClaimId id, String keySource) {
    boolean natural = isNatural(keySource);
    if (!KeyDigest.looksDigested(id.key())) {
      return (natural ? "key made from its arguments, " : "idempotency key ")
          + ClaimId.quoted(id.key())
          + (natural ? "," : "");
    }
    return natural
        ? "same key (made from its arguments)"
        : "same idempotency key"; // a client's key kept as its digest: quoted nowhere
  }

  private static boolean isNatural(String keySource) {
    return KeySource.NATURAL.wireName().equals(keySource);
  }

  /**
   * @return the error type ({@code structuredContent.error.type}) the model gets for a refusal; a
   *     reason that is still running and one that stopped share one, as do an unknown outcome and a
   *     result that was not stored (they differ in {@code executed})
   */
  static String errorType(RefusalReason reason) {
    return switch (reason) {
      case CONFLICT -> McpGateErrors.KEY_CONFLICT;
      case IN_PROGRESS, HOLDER_UNRESPONSIVE -> McpGateErrors.KEY_IN_PROGRESS;
      case OUTCOME_UNKNOWN, RESULT_NOT_STORED -> McpGateErrors.OUTCOME_UNKNOWN;
    };
  }

  /**
   * The gate refused the call: one error type and one sentence per reason.
   *
   * @param reconciles whether the tool's policy has a reconciler, which a retry of a key whose
   *     outcome is unknown asks first
   */
  static CallToolResult of(GateResult.Refused<?> refused, boolean reconciles) {
    ClaimId id = refused.id();
    long ms = refused.retryAfter().toMillis();
    String type = errorType(refused.reason());
    return switch (refused.reason()) {
      case CONFLICT ->
          notRun(
              type,
              "The "
                  + keyOf(id, refused.keySource())
                  + " was already used for a call to "
                  + id.tool()
                  + " with different arguments, so this call was not run. "
                  + (isNatural(refused.keySource())
                      ? "Resend the original arguments to get the original result."
                      : "Use a new key for a new request, or resend the original arguments to get"
                          + " the original result."));
      case IN_PROGRESS ->
          error(
              type,
              Effect.UNKNOWN,
              true,
              "A call to "
                  + id.tool()
                  + " with the "
                  + keyOf(id, refused.keySource())
                  + " is still running. Retry the"
                  + " same call with the same key after "
                  + ms
                  + " ms to get its result; do not use a new"
                  + " key.",
              refused.retryAfter());
      case HOLDER_UNRESPONSIVE ->
          error(
              type,
              Effect.UNKNOWN,
              true,
              "An earlier attempt of this call to "
                  + id.tool()
                  + " with the "
                  + keyOf(id, refused.keySource())
                  + " stopped responding before it finished, and may have taken"
                  + " effect. Retry the same call with the same key after "
                  + ms
                  + " ms: it then runs again in place of the earlier attempt, under the same key."
                  + " Do not use a new key.",
              refused.retryAfter());
      case OUTCOME_UNKNOWN ->
          reconciles
              ? error(
                  type,
                  Effect.UNKNOWN,
                  true,
                  "An earlier attempt of"
                      + " this call to "
                      + id.tool()
                      + " may have taken effect, and whether it did is not known yet, so this call"
                      + " is refused for now. Retry the same call with the same key after "
                      + ms
                      + " ms: the server checks again then, and returns the first"
                      + " result if it took effect. Do not send it with a new key: that could do it"
                      + " twice.",
                  refused.retryAfter())
              : error(
                  type,
                  Effect.UNKNOWN,
                  false,
                  "An earlier attempt of"
                      + " this call to "
                      + id.tool()
                      + " may have taken effect, and whether it did is not known, so this call is"
                      + " refused, and so is this key until someone checks and settles it. Do not"
                      + " send it with a new key: that could do it twice. Check whether the effect"
                      + " happened, or ask the operator.",
                  null);
      case RESULT_NOT_STORED ->
          error(
              type,
              Effect.YES,
              false,
              "This call to "
                  + id.tool()
                  + " ran before and took effect, but its result was too large to keep. It is never"
                  + " run again with this key; check its effect directly, and do not send it with a"
                  + " new key.",
              null);
    };
  }

  /** Like {@link #of(GateResult.Refused, boolean)} for a tool without a reconciler. */
  static CallToolResult of(GateResult.Refused<?> refused) {
    return of(refused, false);
  }

  /**
   * The gate failed the call: one error type and one sentence per reason, with what the gate knows
   * of the effect ({@code executed}) and whether a retry with the same key is safe, as the failure
   * says them. Null for the action's own failure ({@link FailureReason#ACTION_FAILED}): that
   * reaches the client as the handler threw it, as it would without the gate.
   */
  static CallToolResult of(GateResult.Failed<?> failed) {
    Effect effect = failed.effect();
    boolean retry = failed.retrySafe();
    return switch (failed.reason()) {
      case STORE_UNAVAILABLE ->
          error(
              McpGateErrors.STORE_UNAVAILABLE,
              effect,
              retry,
              "The idempotency store could not be reached, so this call did not take effect. It is"
                  + " safe to retry the same call with the same key later.",
              null);
      case GATE_CLOSED ->
          error(
              McpGateErrors.STORE_UNAVAILABLE,
              effect,
              retry,
              "The server is shutting down, so this call was not run and nothing took effect. It is"
                  + " safe to retry the same call with the same key.",
              null);
      case ROLLED_BACK ->
          error(
              McpGateErrors.STORE_UNAVAILABLE,
              effect,
              retry,
              "The call's changes were rolled back because saving them failed; nothing took"
                  + " effect. It is safe to retry the same call with the same key.",
              null);
      case COMMIT_UNKNOWN ->
          error(
              McpGateErrors.OUTCOME_UNKNOWN,
              effect,
              retry,
              "The call ran, but saving its changes failed, and whether they were saved is not"
                  + " known: it may have taken effect. Retry the same call with the same key (you"
                  + " may be asked to wait first): that is safe, and it returns the first result if"
                  + " the call took effect, or runs it once if it did not. Do not send it with a"
                  + " new key: that could do it twice.",
              null);
      case OUTCOME_UNKNOWN ->
          error(
              McpGateErrors.OUTCOME_UNKNOWN,
              effect,
              retry,
              retry
                  ? "The call ran, or may have, and whether it took effect is not known. Do not"
                      + " send it with a new key: that could do it twice. Retry the same call with"
                      + " the same key later: the server then checks whether it took effect, and"
                      + " returns the first result if it did."
                  : "The call ran, or may have, and whether it took effect is not known. Do not"
                      + " send it with a new key: that could do it twice. The same key is refused"
                      + " until someone checks and settles it; check whether the effect happened,"
                      + " or ask the operator.",
              null);
      case LEASE_LOST ->
          error(
              McpGateErrors.KEY_IN_PROGRESS,
              effect,
              retry,
              "Another attempt of this call took it over before it finished, so this attempt's"
                  + " changes were rolled back; the other attempt may have taken effect. Retry the"
                  + " same call with the same key to get its result; do not use a new key.",
              null);
      case RESULT_TOO_LARGE ->
          error(
              McpGateErrors.OUTCOME_UNKNOWN,
              effect,
              retry,
              "The call ran and took effect, but its result was too large to keep for retries"
                  + (failed.cause() instanceof ResultTooLargeException e
                      ? " (" + e.size() + " bytes)"
                      : "")
                  + ". It is never run again with this key; check its effect before sending a new"
                  + " request.",
              null);
      case RESULT_UNREADABLE ->
          error(
              McpGateErrors.OUTCOME_UNKNOWN,
              effect,
              retry,
              retry
                  ? "This call ran before and took effect, but the server cannot read its stored"
                      + " result back right now, so nothing was run again. Retry the same call"
                      + " with the same key later: it returns the first result. Do not send it"
                      + " with a new key: that could do it twice."
                  : "This call ran before and took effect, but the server cannot read its stored"
                      + " result back, so nothing was run again. Do not send it with a new key:"
                      + " that could do it twice. Check its effect directly, or ask the"
                      + " operator.",
              null);
      case ARGUMENTS_INVALID ->
          error(
              McpGateErrors.ARGUMENTS_INVALID,
              effect,
              retry,
              "The arguments cannot be compared for retries: "
                  + failed.message()
                  + ". Nothing was run; send the call again with valid arguments.",
              null);
      case ACTION_FAILED -> null;
    };
  }

  /**
   * A failure that is none of the gate's answers (a hook of the server's threw, the gate threw, an
   * answer could not be made of a result): a fixed sentence, with nothing of the failure in it (its
   * details go to the server's log), saying only what is known of the effect. A retry is safe but
   * for a call that took effect, whose answer a retry would fail to make again.
   */
  static CallToolResult internalError(Effect effect) {
    return error(
        McpGateErrors.INTERNAL_ERROR,
        effect,
        effect != Effect.YES, // its answer is made from the stored result, which a retry reads too
        effect == Effect.NO
            ? "The server failed before running this call, so it did not take effect. It is safe to"
                + " retry the same call with the same key later."
            : effect == Effect.YES
                ? "The call took effect, but the server cannot make its answer, and a retry with"
                    + " the same key would get this error again. Do not send it with a new key:"
                    + " that would do it twice. Check its effect directly, or ask the operator."
                : "The server failed while handling this call and cannot say whether it took"
                    + " effect. Retry the same call with the same key later: that is safe, and it"
                    + " returns the first result if the call took effect. Do not send it with a"
                    + " new key: that could do it twice.",
        null);
  }

  /**
   * The stored result, unchanged but for two {@code _meta} entries that mark it as a replay: when
   * it was first executed or, for a result stored after an operator's takeover, when it was stored.
   */
  static CallToolResult markReplay(CallToolResult stored, GateResult.Replayed<?> replay) {
    Map<String, Object> meta =
        stored.meta() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(stored.meta());
    meta.put(McpGateErrors.META_REPLAYED, true);
    meta.remove(McpGateErrors.META_FIRST_EXECUTED_AT); // a stored result's own, if it had them
    meta.remove(McpGateErrors.META_SETTLED_AT);
    if (replay.settled()) {
      meta.put(McpGateErrors.META_SETTLED_AT, InstantText.of(replay.completedAt()));
    } else {
      meta.put(McpGateErrors.META_FIRST_EXECUTED_AT, InstantText.of(replay.firstExecutedAt()));
    }
    return new CallToolResult(stored.content(), stored.isError(), stored.structuredContent(), meta);
  }
}
