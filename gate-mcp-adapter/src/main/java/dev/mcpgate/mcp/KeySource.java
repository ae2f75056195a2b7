package dev.mcpgate.mcp;

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
   *   KeySource.copyHeader(request.getHeader(KeySource.HEADER_CONTEXT_KEY), values);
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
   * Puts the {@code Idempotency-Key} header's value into a transport context's values, when the
   * request has one.
   *
   * @param headerValue the header's value, or null when the request has none
   * @param contextValues the values the context extractor builds
   */
  public static void copyHeader(String headerValue, Map<String, Object> contextValues) {
    if (headerValue != null) {
      contextValues.put(HEADER_CONTEXT_KEY, headerValue);
    }
  }
}
