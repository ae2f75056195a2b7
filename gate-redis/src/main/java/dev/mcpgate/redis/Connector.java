package dev.mcpgate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * Opens the store's connections on a Lettuce client: the main one (claims, completions, reads) and
 * the renewals' own (a new one whenever the renewal pipeline discards the last). One implementation
 * per kind of client.
 */
interface Connector {

  /**
   * @return the main connection
   */
  RedisLink connect();

  /**
   * @return a new connection of the renewals' own, named; blocking, on a renewal pipeline's thread
   */
  RenewalLink connectRenewals();

  /** Connections to one Redis server. */
  static Connector of(RedisClient client) {
    return new Connector() {
      @Override
      public RedisLink connect() {
        return SingleNodeLink.connect(client);
      }

      @Override
      public RenewalLink connectRenewals() {
        return RenewalLink.of(client.connect(ByteArrayCodec.INSTANCE));
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
      public RenewalLink connectRenewals() {
        return RenewalLink.of(client.connect(ByteArrayCodec.INSTANCE));
      }
    };
  }
}
