/**
 * The Redis (and Valkey) store: {@link dev.mcpgate.redis.RedisIdempotencyStore}, on Lettuce and
 * server-side scripts.
 */
package dev.mcpgate.redis;
