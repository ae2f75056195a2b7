/**
 * Gates the tool handlers of an MCP Java SDK server: {@link dev.mcpgate.mcp.McpGate} wraps tool
 * specifications (sync, async, stateless) or every {@link dev.mcpgate.mcp.Idempotent}-annotated
 * tool; {@link dev.mcpgate.mcp.ToolPolicy} says where a tool's key comes from; {@link
 * dev.mcpgate.mcp.GatedClaim} lets a handler read the claim it runs under.
 */
package dev.mcpgate.mcp;
