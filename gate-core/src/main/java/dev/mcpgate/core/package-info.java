/**
 * The idempotency gate: {@link dev.mcpgate.core.IdempotencyGate}, its policies, the outcomes of a
 * claim as values, listeners, and the exceptions (all under {@link
 * dev.mcpgate.core.IdempotencyException}) for real failures.
 */
package dev.mcpgate.core;
