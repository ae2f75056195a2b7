/**
 * MCP Gate for Quarkus: add the {@code gate-quarkus} dependency and put {@link
 * dev.mcpgate.mcp.Idempotent @Idempotent} on a Quarkiverse MCP server {@code @Tool} method that
 * returns {@code ToolResponse}; a retried call with the same idempotency key then gets the first
 * result instead of acting again. Configured by {@link dev.mcpgate.quarkus.McpGateConfig} ({@code
 * mcpgate.*}); everything else is in {@code dev.mcpgate.quarkus.internal}.
 */
package dev.mcpgate.quarkus;
