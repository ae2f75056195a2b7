/**
 * The Spring Boot starter: {@link dev.mcpgate.spring.McpGateAutoConfiguration} gates the
 * {@code @Idempotent} tools of a Spring AI MCP server; {@link dev.mcpgate.spring.McpGateProperties}
 * are its {@code mcpgate.*} properties.
 */
package dev.mcpgate.spring;
