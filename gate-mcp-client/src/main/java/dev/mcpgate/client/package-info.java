/**
 * The client's half of MCP Gate: calls to the write tools of an MCP server, made through the MCP
 * Java SDK's {@code McpSyncClient} or {@code McpAsyncClient}, at most once per intent.
 *
 * <p>{@link IdempotentCalls} (sync) and {@link AsyncIdempotentCalls} (Reactor) give each intent one
 * {@link IntentKey} (a random UUID, or the caller's own operation id), put it where the server
 * reads it (the key argument its tool advertises, else {@code _meta} {@value
 * IdempotentCalls#META_KEY}), retry lost answers and the server's "retry with the same key"
 * refusals under that same key with back-off, and stop when the server says the outcome is unknown.
 * Every call ends in one {@link CallOutcome}, a value: what the server answered, or what is known
 * of the effect when it did not.
 */
package dev.mcpgate.client;
