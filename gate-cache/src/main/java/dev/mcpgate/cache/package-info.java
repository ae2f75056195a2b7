/**
 * An opt-in near-cache for replays ({@link dev.mcpgate.cache.ReplayCache}): a decorator of any
 * {@link dev.mcpgate.core.spi.IdempotencyStore} that keeps completed rows in process (Caffeine),
 * each dropped before its row could expire by the store's clock. gate-core does not depend on it.
 */
package dev.mcpgate.cache;
