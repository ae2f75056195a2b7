package dev.mcpgate.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;

/**
 * The store's main connection, to one Redis ({@link SingleNodeLink}) or to a Redis Cluster ({@link
 * ClusterLink}): its scripts, and the few other commands the store sends. Every command names at
 * most one key, so on a cluster each goes to the node that serves that key's slot.
 */
interface RedisLink extends AutoCloseable {

  /**
   * @return the scripts, run on the node of their one key
   */
  ScriptRunner scripts();

  /** {@code HMGET} of one key, on the node of its slot. */
  List<KeyValue<byte[], byte[]>> hmget(byte[] key, byte[]... fields);

  /** One page of a {@code SCAN} over every node that holds claims. */
  KeyScanCursor<byte[]> scan(ScanCursor from, ScanArgs args);

  /**
   * @param parameter a server setting
   * @return {@code CONFIG GET parameter} of the connection's default node (on a cluster: one of its
   *     nodes)
   */
  Map<String, String> configGet(String parameter);

  /**
   * @return {@code TIME} of the connection's default node (on a cluster: one of its nodes)
   */
  List<byte[]> time();

  /**
   * @return a connection to every node that holds claims (the server, or each cluster master), by
   *     {@code host:port}, in a stable order
   * @throws RedisException naming what is wrong when a node cannot be reached, or the cluster
   *     cannot serve every slot
   */
  Map<String, RedisCommands<byte[], byte[]>> nodes();

  @Override
  void close();
}
