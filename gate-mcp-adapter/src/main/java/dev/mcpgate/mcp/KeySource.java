package dev.mcpgate.mcp;

/** Where the adapter looks for a call's idempotency key, in the order a {@link ToolPolicy} lists. */
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
   * A natural key: the values of named arguments the caller already has ({@code session_id},
   * {@code order_id}, {@code slug}). For a model caller this is the strongest key: a key the model
   * invents afresh on each attempt protects nothing.
   */
  NATURAL
}
