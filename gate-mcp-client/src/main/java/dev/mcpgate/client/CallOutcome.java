package dev.mcpgate.client;

import static java.util.Objects.requireNonNull;

import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

/**
 * How one intent ended: one of five values, each with the intent's key and the number of attempts
 * made. Switch over it exhaustively; a new case is then a compile error where it is missed.
 *
 * <ul>
 *   <li>{@link Completed}: the tool answered (its own error results included); this is its first
 *       result, whichever attempt brought it.
 *   <li>{@link Refused}: the server refused the call and says it did not take effect, and no
 *       earlier attempt of this call lost its answer: nothing of this call ran; the same call with
 *       the same key would be refused again.
 *   <li>{@link OutcomeUnknown}: the server says the call ran or may have, and cannot give its
 *       result; it was not sent again.
 *   <li>{@link ErrorAnswer}: the server answered with a JSON-RPC error, and no earlier attempt of
 *       the intent lost its answer; not sent again.
 *   <li>{@link GaveUp}: no settling answer came within the retry policy's attempts or deadline; an
 *       answer was lost from a tool that is not retry-safe; or, after a lost answer, a refusal or a
 *       JSON-RPC error that speaks only for the later attempt. Its {@code executed} says what is
 *       known.
 * </ul>
 *
 * <p>An outcome speaks for the attempts of its own call. Under a key the client made ({@link
 * IdempotentCalls#call(String, java.util.Map)}) that is the whole intent; under a key you gave
 * ({@link IntentKey#of}, or an earlier outcome's key), an earlier call of yours under it may have
 * run, whatever this call was told. Never send an intent again under a new key unless its outcome
 * says {@link Executed#NO} and no earlier call under its key may have run: a new key is a new
 * request to the server, and could act twice. To try again later, call with the same {@link
 * #key()}.
 */
public sealed interface CallOutcome {

  /**
   * @return the intent's key, sent with every attempt
   */
  IntentKey key();

  /**
   * @return how many attempts were made (at least 1)
   */
  int attempts();

  /**
   * The tool answered. On an MCP Gate server a lost first answer is answered again from the store:
   * the result is the first execution's, marked {@code replayed}.
   *
   * @param key the intent's key
   * @param result the tool's result, as the server sent it; {@code isError} may be true for the
   *     tool's own errors
   * @param replayed true when the server marked the result as a replay of an earlier attempt
   *     ({@code _meta} {@value IdempotentCalls#META_REPLAYED})
   * @param attempts the attempts made
   */
  record Completed(IntentKey key, CallToolResult result, boolean replayed, int attempts)
      implements CallOutcome {
    /**
     * @throws NullPointerException if {@code key} or {@code result} is null
     */
    public Completed {
      requireNonNull(key, "key must not be null");
      requireNonNull(result, "result must not be null");
    }
  }

  /**
   * The server refused the call, and says it did not take effect ({@link Executed#NO}) and that
   * sending it again with the same key would be refused again: a missing or invalid key, a key used
   * before with other arguments, an unknown tenant, a forbidden call, arguments that cannot be
   * compared. Only ever returned when nothing of this call ran: every earlier attempt of this call,
   * if any, was answered "did not take effect" (after a lost answer, such a refusal ends as {@link
   * GaveUp} instead). It does not speak for an earlier call under a key you gave (one that ended
   * {@link GaveUp}, say): that call's effect is as its outcome said. Fix the cause first; a new
   * request then needs a new key, once no earlier call under this one may have run.
   *
   * @param key the intent's key
   * @param error the server's refusal
   * @param attempts the attempts made
   */
  record Refused(IntentKey key, GateError error, int attempts) implements CallOutcome {
    /**
     * @throws NullPointerException if {@code key} or {@code error} is null
     */
    public Refused {
      requireNonNull(key, "key must not be null");
      requireNonNull(error, "error must not be null");
    }
  }

  /**
   * The server says the call ran, or may have, and it cannot give the result; a retry with the same
   * key would be refused until someone settles it (a reconciler, an operator). It was not sent
   * again, and must not be sent under a new key. Keep {@link #key()} to check the effect, or to
   * retry with it later.
   *
   * @param key the intent's key
   * @param executed {@link Executed#UNKNOWN}, or {@link Executed#YES} when the server knows it took
   *     effect but kept no result (too large to store)
   * @param error the server's answer
   * @param attempts the attempts made
   */
  record OutcomeUnknown(IntentKey key, Executed executed, GateError error, int attempts)
      implements CallOutcome {
    /**
     * @throws NullPointerException if a component is null
     * @throws IllegalArgumentException if {@code executed} is {@link Executed#NO}
     */
    public OutcomeUnknown {
      requireNonNull(key, "key must not be null");
      requireNonNull(executed, "executed must not be null");
      requireNonNull(error, "error must not be null");
      if (executed == Executed.NO) {
        throw new IllegalArgumentException("an unknown outcome cannot be executed NO");
      }
    }
  }

  /**
   * The server answered with a JSON-RPC error instead of a result: the tool threw, is unknown, or
   * its arguments broke its schema. The protocol says nothing of the effect; on an MCP Gate server
   * a tool that threw has released its key, so the same key runs it again. Not sent again. Only
   * returned when no earlier attempt of this call lost its answer (after a lost answer, a JSON-RPC
   * error ends as {@link GaveUp} with {@link Executed#UNKNOWN}); like {@link Refused}, it does not
   * speak for an earlier call under a key you gave.
   *
   * @param key the intent's key
   * @param code the JSON-RPC error code
   * @param message the error's message
   * @param attempts the attempts made
   */
  record ErrorAnswer(IntentKey key, int code, String message, int attempts) implements CallOutcome {
    /**
     * @throws NullPointerException if {@code key} or {@code message} is null
     */
    public ErrorAnswer {
      requireNonNull(key, "key must not be null");
      requireNonNull(message, "message must not be null");
    }
  }

  /**
   * No answer settled the intent before the retry policy's attempts or deadline ran out; or an
   * answer was lost from a tool that is not retry-safe (it does not declare {@code idempotentHint:
   * true}, or its server does not read the key where the client puts it, or its definition, listed
   * again before the retry, no longer says so), which is not sent again (without a gate, a second
   * call would act again); or, after a lost answer, a later attempt was refused with {@code
   * executed: no} or answered with a JSON-RPC error ({@link AttemptFailure.RefusedAfterLostAnswer},
   * {@link AttemptFailure.ErrorAfterLostAnswer}), which says nothing of the earlier attempt; or the
   * client failed inside after an attempt was sent. Every attempt carried {@link #key()}: call
   * again with that key later (the server then returns the first result if the call took effect),
   * never with a new one unless {@code executed} is {@link Executed#NO}.
   *
   * @param key the intent's key
   * @param executed what is known of the effect: {@link Executed#NO} only when every attempt was
   *     answered with "did not take effect"; {@link Executed#UNKNOWN} when an answer was lost (that
   *     attempt may have run) or the server said so; {@link Executed#YES} when the server said so
   * @param lastFailure why the last attempt did not settle it
   * @param attempts the attempts made
   */
  record GaveUp(IntentKey key, Executed executed, AttemptFailure lastFailure, int attempts)
      implements CallOutcome {
    /**
     * @throws NullPointerException if a component is null
     */
    public GaveUp {
      requireNonNull(key, "key must not be null");
      requireNonNull(executed, "executed must not be null");
      requireNonNull(lastFailure, "lastFailure must not be null");
    }
  }
}
