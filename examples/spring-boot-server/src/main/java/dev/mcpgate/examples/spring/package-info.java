/**
 * A Spring AI MCP server gated by the MCP Gate starter: {@link
 * dev.mcpgate.examples.spring.RefundsApplication} and its {@link
 * dev.mcpgate.examples.spring.RefundTools}.
 */
package dev.mcpgate.examples.spring;
