/**
 * Canonical JSON and the versioned SHA-256 argument hash that decides whether a retried call
 * carries the same arguments as the first.
 *
 * <p>API, on purpose: {@link dev.mcpgate.core.hash.ArgumentHasher} and {@link
 * dev.mcpgate.core.hash.CanonicalJson} are the two public classes here, and they are the contract
 * that stored hashes are held to. The canonical form of a version ({@code v1} now) never changes,
 * since rows already stored carry hashes of it (golden tests pin it); a new form comes as a new
 * version. MCP Gate's other modules use them as any caller may: the MCP adapter writes a natural
 * key as canonical JSON and puts the argument hash in its audit records; a user can compute the
 * hash a row holds to check it. Everything else here is package-private.
 */
package dev.mcpgate.core.hash;
