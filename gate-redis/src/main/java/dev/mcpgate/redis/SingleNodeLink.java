package dev.mcpgate.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.List;
import java.util.Map;

/** The store's connection to one Redis server (standalone, Sentinel-managed, TLS). */
final class SingleNodeLink implements RedisLink {
  private final StatefulRedisConnection<byte[], byte[]> connection;
  private final RedisCommands<byte[], byte[]> redis;
  private final ScriptRunner scripts;

  private SingleNodeLink(StatefulRedisConnection<byte[], byte[]> connection) {
    this.connection = connection;
    this.redis = connection.sync();
    this.scripts = new ScriptRunner(redis);
  }

  static SingleNodeLink connect(RedisClient client) {
    return new SingleNodeLink(client.connect(ByteArrayCodec.INSTANCE));
  }

  @Override
  public ScriptRunner scripts() {
    return scripts;
  }

  @Override
  public List<KeyValue<byte[], byte[]>> hmget(byte[] key, byte[]... fields) {
    return redis.hmget(key, fields);
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
   * @return the one server, under the name ""
   */
  @Override
  public Map<String, RedisCommands<byte[], byte[]>> nodes() {
    return Map.of("", redis);
  }

  @Override
  public void close() {
    connection.close();
  }
}
