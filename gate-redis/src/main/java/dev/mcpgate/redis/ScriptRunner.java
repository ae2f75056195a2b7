package dev.mcpgate.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Runs the store's scripts by their SHA-1 ({@code EVALSHA}, one round trip with a small request); a
 * server that does not know a script yet (a restart, a failover, {@code SCRIPT FLUSH}) gets it once
 * with {@code EVAL}, which also caches it there. On a cluster connection both go to the node that
 * serves the key's slot, so each node loads the script the first time it is asked.
 */
final class ScriptRunner {
  private final RedisScriptingCommands<byte[], byte[]> redis;

  ScriptRunner(RedisScriptingCommands<byte[], byte[]> redis) {
    this.redis = redis;
  }

  /** A script and its digest, computed once. */
  record Script(byte[] body, String sha) {
    static Script of(String text) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      try {
        return new Script(
            body, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body)));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every JDK has SHA-1", e);
      }
    }
  }

  <T> T run(Script script, ScriptOutputType type, byte[] key, byte[]... args) {
    byte[][] keys = {key};
    try {
      return redis.evalsha(script.sha(), type, keys, args);
    } catch (RedisNoScriptException notLoaded) {
      return redis.eval(script.body(), type, keys, args);
    }
  }
}
