/**
 * The build-time half of the MCP Gate Quarkus extension: it finds the {@code @Tool} methods, binds
 * the gate to those that carry {@code @Idempotent}, fails the build on a gated tool it could not
 * gate as declared, and reports the write tools that are not gated.
 */
package dev.mcpgate.quarkus.deployment;
