/**
 * The kit's checks for a Spring Boot application gated by the MCP Gate starter: only loaded when
 * {@code spring-context} (and, for {@code @SpringBootTest}, {@code spring-test}) is on the test
 * class path; the rest of the kit never needs Spring.
 */
package dev.mcpgate.testkit.spring;
