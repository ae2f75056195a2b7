package dev.mcpgate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * Opens the store's two connections on a Lettuce client: the main one (claims, completions, reads)
 * and the renewals' own. One implementation per kind of client.
 */
interface Connector {

  /**
   * @return the main connection
   */
  RedisLink connect();

  /**
   * @return the renewals' own connection
   */
  RenewalPipeline connectRenewals();

  /** Connections to one Redis server. */
  static Connector of(RedisClient client) {
    return new Connector() {
      @Override
      public RedisLink connect() {
        return SingleNodeLink.connect(client);
      }

      @Override
      public RenewalPipeline connectRenewals() {
        return RenewalPipeline.of(client.connect(ByteArrayCodec.INSTANCE));
      }
    };
  }

  /** Connections to a Redis Cluster: each command goes to the master of its key's slot. */
  static Connector of(RedisClusterClient client) {
    return new Connector() {
      @Override
      public RedisLink connect() {
        return ClusterLink.connect(client);
      }

      @Override
      public RenewalPipeline connectRenewals() {
        return RenewalPipeline.of(client.connect(ByteArrayCodec.INSTANCE));
      }
    };
  }
}
