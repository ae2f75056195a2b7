/**
 * OpenTelemetry for MCP Gate, on {@code opentelemetry-api} alone: {@link
 * dev.mcpgate.opentelemetry.GateTelemetry#listener} records the decisions in counters and
 * histograms and adds each call's decision to the current span; {@link
 * dev.mcpgate.opentelemetry.GateTelemetry#store} times store operations. Instrument and attribute
 * names are in docs/operations.md.
 */
package dev.mcpgate.opentelemetry;
