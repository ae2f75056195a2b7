/**
 * Canonical JSON and the versioned SHA-256 argument hash that decides whether a retried call
 * carries the same arguments as the first.
 */
package dev.mcpgate.core.hash;
