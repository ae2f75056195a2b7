package dev.mcpgate.mcp;

/**
 * The error types of refusals, in {@code structuredContent.error.type} of an {@code isError}
 * result. The names follow the closed MCP proposal SEP-3182.
 */
public final class McpGateErrors {
  private McpGateErrors() {}

  /** No idempotency key was given and the tool requires one. Nothing ran. */
  public static final String KEY_REQUIRED = "idempotency_key_required";
  /**
   * The key is malformed (blank, too long, control characters, not valid Unicode, not a string),
   * or two sources carry different keys. Nothing ran; send a valid key.
   */
  public static final String KEY_INVALID = "idempotency_key_invalid";
  /** The key was used before with different arguments. Nothing ran. */
  public static final String KEY_CONFLICT = "idempotency_key_conflict";
  /** Another attempt with this key is running (or stopped responding); retry after {@code retry_after_ms}. */
  public static final String KEY_IN_PROGRESS = "idempotency_key_in_progress";
  /** An earlier attempt's outcome is unknown (or its result could not be kept). Not run again now. */
  public static final String OUTCOME_UNKNOWN = "idempotency_outcome_unknown";
  /** The store could not be reached. Nothing ran; safe to retry the same call later. */
  public static final String STORE_UNAVAILABLE = "idempotency_store_unavailable";

  /**
   * The server could not tell which account the call belongs to (no tenant from the transport).
   * Nothing ran; a server configuration problem: a retry does not help until it is fixed. Not
   * from SEP-3182.
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
   * The {@link CallAuthorizer} refused the call (not an idempotency error, and not from
   * SEP-3182). Nothing was claimed, run or replayed.
   */
  public static final String FORBIDDEN = "forbidden";

  /** The {@code _meta} entry that carries a key from apps and clients. */
  public static final String META_KEY = "dev.mcpgate/idempotency-key";
  /** The {@code _meta} mark on a replayed result. */
  public static final String META_REPLAYED = "dev.mcpgate/replayed";
  /**
   * The {@code _meta} entry of a gated tool's definition in {@code tools/list}: how it is gated
   * ({@code key_sources}, {@code key_argument}, {@code natural_key}), for surveys and clients.
   */
  public static final String META_TOOL = "dev.mcpgate/idempotency";
  /** The {@code _meta} entry on a replayed result: when the first execution claimed the key. */
  public static final String META_FIRST_EXECUTED_AT = "dev.mcpgate/first-executed-at";
}
