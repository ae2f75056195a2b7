package dev.mcpgate.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The store's connection to a Redis Cluster: Lettuce routes each script to the master that serves
 * its key's slot (following {@code MOVED} and {@code ASK} after a failover or a resharding), {@code
 * SCAN} walks every master, and {@code TIME} asks the connection's default node.
 */
final class ClusterLink implements RedisLink {
  private static final String STATE_OK = "cluster_state:ok";

  private final RedisClusterClient client;
  private final StatefulRedisClusterConnection<byte[], byte[]> connection;
  private final RedisAdvancedClusterCommands<byte[], byte[]> redis;
  private final ScriptRunner scripts;

  private ClusterLink(
      RedisClusterClient client, StatefulRedisClusterConnection<byte[], byte[]> connection) {
    this.client = client;
    this.connection = connection;
    this.redis = connection.sync();
    this.scripts = new ScriptRunner(redis, this::connectMasters);
  }

  static ClusterLink connect(RedisClusterClient client) {
    ClusterLink link = new ClusterLink(client, client.connect(ByteArrayCodec.INSTANCE));
    link.connectMasters();
    return link;
  }

  /**
   * Opens the connection to every master now. Lettuce opens a node's connection on the first
   * command for one of its slots, and with {@code REJECT_COMMANDS} (the store's own client's
   * option: fail closed at once) it rejects every command that arrives while that connection is
   * still being made: the first calls after a start, or after a failover made a replica master,
   * would be refused. A master that cannot be reached now is left to be connected on use.
   */
  private void connectMasters() {
    for (RedisClusterNode n : connection.getPartitions()) {
      if (holdsClaims(n) && !n.is(RedisClusterNode.NodeFlag.FAIL)) {
        try {
          connection.getConnection(n.getUri().getHost(), n.getUri().getPort());
        } catch (RedisException unreachable) {
          // refused on use, as the gate's fail-closed rule asks
        }
      }
    }
  }

  /**
   * Whether {@code n} is a master that serves slots, so holds claims. A master that failed and was
   * replaced by its replica stays listed (flagged {@code fail}, without slots) until it comes back
   * or is forgotten: it holds no claim, and connecting to it (a hung host) would only wait.
   */
  private static boolean holdsClaims(RedisClusterNode n) {
    return n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty();
  }

  @Override
  public ScriptRunner scripts() {
    return scripts;
  }

  @Override
  public List<KeyValue<byte[], byte[]>> hmget(byte[] key, byte[]... fields) {
    return ScriptRunner.resendingUnsent(() -> redis.hmget(key, fields), this::connectMasters);
  }

  @Override
  public KeyScanCursor<byte[]> scan(ScanCursor from, ScanArgs args) {
    return redis.scan(from, args);
  }

  @Override
  public Map<String, String> configGet(String parameter) {
    return redis.configGet(parameter);
  }

  @Override
  public List<byte[]> time() {
    return redis.time();
  }

  /**
   * Reloads the topology, checks {@code cluster_state:ok} (every slot served), and connects to
   * every master that serves slots (not a failed one that its replica replaced).
   */
  @Override
  public Map<String, RedisCommands<byte[], byte[]>> nodes() {
    client.refreshPartitions();
    String info = redis.clusterInfo();
    if (info == null || !info.contains(STATE_OK)) {
      String state =
          info == null
              ? "no reply"
              : info.lines()
                  .filter(l -> l.startsWith("cluster_state:"))
                  .findFirst()
                  .orElse("no cluster_state");
      throw new RedisException(
          "the Redis Cluster cannot serve every slot ("
              + state.strip()
              + ", expected "
              + STATE_OK
              + ")");
    }
    Map<String, RedisCommands<byte[], byte[]>> masters = new LinkedHashMap<>();
    connection.getPartitions().stream()
        .filter(ClusterLink::holdsClaims)
        .sorted((a, b) -> a.getUri().toString().compareTo(b.getUri().toString()))
        .forEach(
            n -> {
              String name = n.getUri().getHost() + ":" + n.getUri().getPort();
              try {
                masters.put(name, connection.getConnection(n.getNodeId()).sync());
              } catch (RedisException e) {
                throw new RedisException(
                    "the Redis Cluster master " + name + " cannot be reached: " + e.getMessage(),
                    e);
              }
            });
    if (masters.isEmpty()) {
      throw new RedisException("the Redis Cluster reports no master");
    }
    return masters;
  }

  @Override
  public void close() {
    connection.close();
  }
}
