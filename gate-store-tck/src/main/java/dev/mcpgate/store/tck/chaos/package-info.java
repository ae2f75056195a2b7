/**
 * The engine's promise under store faults, for store authors: {@link
 * dev.mcpgate.store.tck.chaos.PromiseUnderFaults} runs gates on the store under test through a
 * faulty path (refusals, lost replies, stalls) with clients that retry, and checks the history
 * against the promise. The same fault vocabulary and checker drive MCP Gate's own deterministic
 * simulation of the engine (this module's tests), in virtual time.
 */
package dev.mcpgate.store.tck.chaos;
