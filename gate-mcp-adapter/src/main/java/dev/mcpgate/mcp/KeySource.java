package dev.mcpgate.mcp;

import java.util.List;
import java.util.Map;

/**
 * Where the adapter looks for a call's idempotency key, in the order a {@link ToolPolicy} lists.
 */
public enum KeySource {
  /**
   * A tool argument (by default {@code idempotency_key}) that the adapter adds to the tool's input
   * schema and description, so that a model sees it and reuses it on retry.
   */
  ARGUMENT,
  /**
   * The request's {@code _meta} entry {@code dev.mcpgate/idempotency-key}: for apps and clients
   * that retry on their own. (Some clients drop {@code _meta}.)
   */
  META,
  /**
   * A natural key: the values of named arguments the caller already has ({@code session_id}, {@code
   * order_id}, {@code slug}). For a model caller this is the strongest key: a key the model invents
   * afresh on each attempt protects nothing.
   */
  NATURAL,
  /**
   * An HTTP header, {@code Idempotency-Key} (the IETF draft's name), for client frameworks that
   * drop {@code _meta}. Off unless a policy lists it. The adapter reads it from the MCP transport
   * context under {@value #HEADER_CONTEXT_KEY}; enable it with one line in the HTTP transport's
   * context extractor:
   *
   * <pre>{@code
   * .contextExtractor(request -> {
   *   Map<String, Object> values = new HashMap<>();
   *   ...
   *   KeySource.copyHeader(
   *       Collections.list(request.getHeaders(KeySource.HEADER_CONTEXT_KEY)), values);
   *   return McpTransportContext.create(values);
   * })
   * }</pre>
   */
  HEADER;

  /**
   * @return how the source is named on the wire: in {@code ToolCall#keySource()} (and so in events,
   *     meters and spans) and in a gated tool's {@code key_sources}
   */
  String wireName() {
    return switch (this) {
      case ARGUMENT -> "argument";
      case META -> "meta";
      case NATURAL -> "natural";
      case HEADER -> "header";
    };
  }

  /** The header's name, and the transport-context key the header's value is kept under. */
  public static final String HEADER_CONTEXT_KEY = "Idempotency-Key";

  /**
   * Puts the {@code Idempotency-Key} header's values into a transport context's values, when the
   * request has the header. Give it every value (a request may send the header more than once), not
   * the first: one value, or one value repeated, is the key; different values are all kept, and the
   * adapter refuses the call as ambiguous ({@code idempotency_key_invalid}, nothing run), as it
   * refuses different keys sent in two places, since which one a retry sends is unknowable.
   *
   * @param headerValues the header's values, in the order sent; null or empty when it has none
   * @param contextValues the values the context extractor builds
   */
  public static void copyHeader(List<String> headerValues, Map<String, Object> contextValues) {
    if (headerValues == null || headerValues.isEmpty()) {
      return;
    }
    List<String> distinct = headerValues.stream().distinct().toList();
    contextValues.put(HEADER_CONTEXT_KEY, distinct.size() == 1 ? distinct.get(0) : distinct);
  }
}
