/**
 * gate-core's own internals: not API, and used by no other module of MCP Gate either (an ArchUnit
 * rule in gate-spring-boot-starter's tests, {@code InternalPackagesTest}, fails the build when a
 * class outside gate-core depends on this package or one below it). Anything here may change or go
 * in any release; an application or a store of its own must not import it.
 *
 * <ul>
 *   <li>{@link dev.mcpgate.core.internal.Checks}: argument checks that name the argument, and the
 *       quoting of a user's value in a message, for gate-core's classes. The other modules check
 *       with the JDK ({@code Objects.requireNonNull(value, "value must not be null")}, the same
 *       message), and a store checks the durations the gate hands it with the SPI's {@link
 *       dev.mcpgate.core.spi.StoreArguments}, which is API.
 *   <li>{@link dev.mcpgate.core.internal.Sha256}: SHA-256 digests copied from one prototype, for
 *       gate-core's hashes.
 *   <li>{@code engine}: the engine behind {@code IdempotencyGate}; gate-core's gate is its only
 *       caller, no other module's.
 * </ul>
 */
package dev.mcpgate.core.internal;
