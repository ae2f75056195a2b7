/**
 * The store SPI: what a backend implements ({@link dev.mcpgate.core.spi.IdempotencyStore}) and the
 * values it exchanges with the gate. Stores return values; the gate owns hashing, policies, codecs,
 * events and waiting.
 */
package dev.mcpgate.core.spi;
