/**
 * The example MCP server ({@code serve --stdio}, {@code serve --http PORT}) whose write tools are
 * gated each the way that fits it, and the demo ({@code demo}) that retries every one of them.
 */
package dev.mcpgate.examples;
