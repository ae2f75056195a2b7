package dev.mcpgate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;

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

  /**
   * A copy of {@code uri} whose timeout is {@code timeout}: a URI's timeout (Lettuce's 60 s unless
   * set) bounds the connection's handshake and a cluster's topology reads, so a server or node that
   * accepts connections and answers nothing would hold the store's first command (and every call
   * waiting for the connection) that long, not the command timeout. A Sentinel URI is kept as it
   * is.
   */
  static RedisURI boundedBy(RedisURI uri, Duration timeout) {
    if (!uri.getSentinels().isEmpty() || uri.getTimeout().compareTo(timeout) <= 0) {
      return uri;
    }
    return RedisURI.builder(uri).withTimeout(timeout).build();
  }
}
