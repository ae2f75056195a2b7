/**
 * Code shared between MCP Gate's own modules, and only between them: not API. Anything here may
 * change or go in any release; an application or a store of its own must not import it.
 *
 * <ul>
 *   <li>{@link dev.mcpgate.core.internal.Checks}: argument checks that name the argument, and the
 *       quoting of a user's value in a message. Every module of MCP Gate (the stores, the MCP
 *       adapter, metrics, tracing, the testkit) checks its arguments with it, so that a bad
 *       argument reads the same everywhere and a user's value is always quoted, escaped and cut the
 *       same way.
 *   <li>{@code engine}: the engine behind {@code IdempotencyGate}; gate-core's gate is its only
 *       caller, no other module's.
 * </ul>
 */
package dev.mcpgate.core.internal;
