package dev.mcpgate.redis;

import io.lettuce.core.cluster.RedisClusterClient;

/**
 * Everything {@link RedisClusterStoreTest} asks of the cluster store (the contract, claims on every
 * master, the renewal pipeline, verify, a manual failover mid-run), asked of a store that makes its
 * own client from seed nodes ({@link RedisIdempotencyStore#clusterBuilder}): the documented entry
 * point, whose client rejects commands while a node's connection is down or still being made, so
 * that the gate fails closed at once. Each test's store is a new client, raced from its first call.
 */
class RedisClusterOwnClientStoreTest extends RedisClusterStoreTest {

  @Override
  protected RedisIdempotencyStore storeOn(RedisClusterClient ignored) {
    return RedisIdempotencyStore.clusterBuilder(TestRedisCluster.seeds()).keyPrefix(PREFIX).build();
  }
}
