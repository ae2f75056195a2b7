/** A Quarkus MCP server whose write tool is gated by the gate-quarkus extension. */
package dev.mcpgate.examples.quarkus;
