/**
 * The extension's implementation: the interceptor that gates {@code @Idempotent} tools, the beans
 * that build the gate from the application's data source, and the conversion between the
 * extension's {@code ToolResponse} and the adapter's {@code CallToolResult}. Not an API: anything
 * here may change.
 */
package dev.mcpgate.quarkus.internal;
