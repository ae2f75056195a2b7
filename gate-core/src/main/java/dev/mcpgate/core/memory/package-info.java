/** An in-memory store for tests and single-process servers. */
package dev.mcpgate.core.memory;
