/**
 * The kit in JUnit 5: {@link dev.mcpgate.testkit.junit.McpGateChecks} on a test class that
 * implements {@link dev.mcpgate.testkit.junit.GatedToolsTest} runs every check on every write tool
 * of the server under test. Needs {@code junit-jupiter-api} (5.13 or later) on the test class path.
 */
package dev.mcpgate.testkit.junit;
