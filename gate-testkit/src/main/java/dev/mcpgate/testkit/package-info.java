/**
 * Test helpers for servers that use MCP Gate (a test-scope dependency): a {@linkplain
 * dev.mcpgate.testkit.ToolSurvey survey} of which write tools are gated, and assertions through a
 * real client that a tool is safe to call twice ({@link dev.mcpgate.testkit.RetryCheck}) and that a
 * merge rule does not depend on arrival order ({@link dev.mcpgate.testkit.ArrivalOrderCheck}).
 */
package dev.mcpgate.testkit;
