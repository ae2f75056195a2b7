/** Implementation helpers shared by the MCP Gate modules. Not API: may change in any release. */
package dev.mcpgate.core.internal;
