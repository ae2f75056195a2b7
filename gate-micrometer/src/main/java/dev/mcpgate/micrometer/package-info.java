/**
 * Micrometer for MCP Gate: {@link dev.mcpgate.micrometer.GateMetrics} counts decisions, {@link
 * dev.mcpgate.micrometer.MeteredStore} times store operations, and {@link
 * dev.mcpgate.micrometer.GateObservations} adds the decision to the current tool-call observation.
 * Meter and attribute names are in docs/operations.md.
 */
package dev.mcpgate.micrometer;
