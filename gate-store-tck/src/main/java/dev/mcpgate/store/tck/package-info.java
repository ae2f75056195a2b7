/**
 * The store contract suite of MCP Gate (a TCK): what every {@link
 * dev.mcpgate.core.spi.IdempotencyStore} promises, as JUnit 5 tests that a store's author runs on
 * their own store.
 *
 * <p>Add {@code dev.mcpgate:gate-store-tck} in test scope and extend {@link
 * dev.mcpgate.store.tck.IdempotencyStoreContract}: implement {@link
 * dev.mcpgate.store.tck.IdempotencyStoreContract#createStore()}, and override the other hooks where
 * the backend needs it (closing, the passing of time, lease length, result size, thread counts). A
 * store that takes a {@link java.time.Clock} can be given a {@link
 * dev.mcpgate.store.tck.MutableClock}, so that time passes without sleeping. The suite brings JUnit
 * Jupiter's API and AssertJ; the test engine is the author's choice of build.
 *
 * <p>Beside the contract: {@link dev.mcpgate.store.tck.chaos.PromiseUnderFaults}, the engine's
 * promise checked on the store under injected faults, and {@link
 * dev.mcpgate.store.tck.fault.FaultProxy}, a TCP proxy that breaks the store's connections.
 */
package dev.mcpgate.store.tck;
