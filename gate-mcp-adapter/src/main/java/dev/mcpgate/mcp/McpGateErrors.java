package dev.mcpgate.mcp;

/**
 * The error types of refusals, in {@code structuredContent.error.type} of an {@code isError}
 * result. The names follow the closed MCP proposal SEP-3182.
 *
 * <p>Every such error says plainly, beside its type and sentence, which of three truths holds and
 * what a retry does:
 *
 * <ul>
 *   <li>{@value #EXECUTED}: {@value #EXECUTED_NO} (the call did not take effect: nothing ran, or
 *       what ran was rolled back), {@value #EXECUTED_YES} (it ran and took effect; a retry never
 *       runs it again) or {@value #EXECUTED_UNKNOWN} (it ran, or may have, or is running: whether
 *       it took effect is not known). Never send the call again under a new key unless this is
 *       {@value #EXECUTED_NO}: a new key is a new request, and could act twice.
 *   <li>{@value #RETRY_WITH_SAME_KEY}: {@code true} when sending the same call with the same key
 *       again (after {@code retry_after_ms}, when given) is what to do: it is safe, and it runs the
 *       call at most once or returns its first result; {@code false} when such a retry would only
 *       be refused again until something changes (a valid key, other arguments, the server's
 *       configuration, or someone settling an unknown outcome).
 *   <li>{@code retry_after_ms}: how long to wait before that retry, when it matters.
 * </ul>
 */
public final class McpGateErrors {
  private McpGateErrors() {}

  /** No idempotency key was given and the tool requires one. Nothing ran. */
  public static final String KEY_REQUIRED = "idempotency_key_required";

  /**
   * The key is malformed (blank, too long, control characters, not valid Unicode, not a string), or
   * two sources carry different keys. Nothing ran; send a valid key.
   */
  public static final String KEY_INVALID = "idempotency_key_invalid";

  /** The key was used before with different arguments. Nothing ran. */
  public static final String KEY_CONFLICT = "idempotency_key_conflict";

  /**
   * Another attempt with this key is running (or stopped responding); retry after {@code
   * retry_after_ms}.
   */
  public static final String KEY_IN_PROGRESS = "idempotency_key_in_progress";

  /**
   * The call ran, or may have, and whether it took effect is not known ({@value #EXECUTED} {@value
   * #EXECUTED_UNKNOWN}): an earlier attempt's outcome is unknown and the key is fenced until it is
   * settled, or this call's commit failed and a retry with the same key finds out ({@value
   * #RETRY_WITH_SAME_KEY} true). Also: the call ran but its result was too large to keep ({@value
   * #EXECUTED} {@value #EXECUTED_YES}); it never runs again under this key.
   */
  public static final String OUTCOME_UNKNOWN = "idempotency_outcome_unknown";

  /**
   * The store could not be reached, the call's transaction was rolled back, or the server is
   * shutting down (its gate is closed). Nothing took effect; safe to retry the same call with the
   * same key later.
   */
  public static final String STORE_UNAVAILABLE = "idempotency_store_unavailable";

  /**
   * The server failed while handling the call, in a way that is not one of the answers above (a
   * hook of the server's threw, or no answer could be made of the call's result); the details are
   * in the server's log, never in the answer. {@value #EXECUTED} says what is known: {@value
   * #EXECUTED_NO} when it failed before the gate, {@value #EXECUTED_YES} when the call took effect
   * and its answer cannot be made ({@value #RETRY_WITH_SAME_KEY} false: a retry would get this
   * error again), {@value #EXECUTED_UNKNOWN} otherwise. Retrying the same call with the same key is
   * safe unless it took effect.
   */
  public static final String INTERNAL_ERROR = "idempotency_internal_error";

  /**
   * The server could not tell which account the call belongs to (no tenant from the transport).
   * Nothing ran. The client's to fix when it did not send what identifies it (a login, a token, a
   * tenant header); else the server's configuration: a retry as it was does not help. Not from
   * SEP-3182.
   */
  public static final String TENANT_UNKNOWN = "tenant_unknown";

  /**
   * The tenant the server resolved breaks the identity rules (too long, control characters, not
   * valid Unicode). Nothing ran; a retry does not help. Not from SEP-3182.
   */
  public static final String TENANT_INVALID = "tenant_invalid";

  /**
   * The arguments have no canonical form to compare retries by (NaN or an infinity, a set, an
   * unsupported type, nesting too deep). Nothing ran; resend with valid arguments. Not from
   * SEP-3182.
   */
  public static final String ARGUMENTS_INVALID = "arguments_invalid";

  /**
   * The {@link CallAuthorizer} refused the call (not an idempotency error, and not from SEP-3182).
   * Nothing was claimed, run or replayed.
   */
  public static final String FORBIDDEN = "forbidden";

  /** The field of {@code structuredContent.error} that says whether the call took effect. */
  public static final String EXECUTED = "executed";

  /** {@value #EXECUTED}: the call did not take effect; safe to send again. */
  public static final String EXECUTED_NO = "no";

  /** {@value #EXECUTED}: the call ran and took effect; it is never run again under its key. */
  public static final String EXECUTED_YES = "yes";

  /**
   * {@value #EXECUTED}: the call ran, may have, or is running; whether it took effect is unknown.
   */
  public static final String EXECUTED_UNKNOWN = "unknown";

  /**
   * The boolean field of {@code structuredContent.error} that says whether to send the same call
   * with the same key again (true: safe, and it gets an answer), or whether that would only be
   * refused again (false).
   */
  public static final String RETRY_WITH_SAME_KEY = "retry_with_same_key";

  /** The field of {@code structuredContent.error} with the milliseconds to wait before a retry. */
  public static final String RETRY_AFTER_MS = "retry_after_ms";

  /** The {@code _meta} entry that carries a key from apps and clients. */
  public static final String META_KEY = "dev.mcpgate/idempotency-key";

  /** The {@code _meta} mark on a replayed result. */
  public static final String META_REPLAYED = "dev.mcpgate/replayed";

  /**
   * The {@code _meta} entry of a gated tool's definition in {@code tools/list}: how it is gated
   * ({@code key_sources}, {@code key_argument}, {@code meta_key}, {@code natural_key}, {@code
   * key_required}, {@code in_flight}), for surveys and clients.
   */
  public static final String META_TOOL = "dev.mcpgate/idempotency";

  /**
   * The {@code _meta} entry on a replayed result: when the first execution claimed the key; absent
   * on a result stored after an operator's takeover ({@link #META_SETTLED_AT} instead).
   */
  public static final String META_FIRST_EXECUTED_AT = "dev.mcpgate/first-executed-at";

  /**
   * The {@code _meta} entry, instead of {@link #META_FIRST_EXECUTED_AT}, on a replayed result
   * stored under an operator's settlement that took the key over from an attempt whose lease had
   * run out (by its verdict, or by a reconciler after it): when the result was stored. The effect
   * ran before, at a time not kept.
   */
  public static final String META_SETTLED_AT = "dev.mcpgate/settled-at";
}
