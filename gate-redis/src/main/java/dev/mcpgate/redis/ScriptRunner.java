package dev.mcpgate.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Supplier;

/**
 * Runs the store's scripts by their SHA-1 ({@code EVALSHA}, one round trip with a small request); a
 * server that does not know a script yet (a restart, a failover, {@code SCRIPT FLUSH}) gets it once
 * with {@code EVAL}, which also caches it there. On a cluster connection both go to the node that
 * serves the key's slot, so each node loads the script the first time it is asked.
 */
final class ScriptRunner {
  private final RedisScriptingCommands<byte[], byte[]> redis;
  private final Runnable reconnect;

  /** Scripts whose failures all go to the caller (one node: a rejection means it is down). */
  ScriptRunner(RedisScriptingCommands<byte[], byte[]> redis) {
    this(redis, null);
  }

  /**
   * @param reconnect run before a script that Lettuce rejected unsent ({@link #notSent}) is sent
   *     once more; null to send nothing twice
   */
  ScriptRunner(RedisScriptingCommands<byte[], byte[]> redis, Runnable reconnect) {
    this.redis = redis;
    this.reconnect = reconnect;
  }

  /**
   * Whether Lettuce refused to send a command: it was rejected before it was written, while the
   * connection to its node was down or still being made ({@code DisconnectedBehavior
   * .REJECT_COMMANDS}), so Redis never ran it and sending it again cannot run it twice. Lettuce
   * says so only in the message of a plain {@link RedisException}.
   */
  static boolean notSent(RuntimeException e) {
    return e.getClass() == RedisException.class && REJECTED.equals(e.getMessage());
  }

  private static final String REJECTED = "Currently not connected. Commands are rejected.";

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
    return resendingUnsent(() -> send(script, type, key, args), reconnect);
  }

  /**
   * Runs {@code command}; when Lettuce rejected it unsent ({@link #notSent}), runs {@code
   * reconnect} and the command once more: it never reached Redis, so it cannot run twice.
   *
   * @param reconnect null to send nothing twice
   */
  static <T> T resendingUnsent(Supplier<T> command, Runnable reconnect) {
    try {
      return command.get();
    } catch (RedisException e) {
      if (reconnect == null || !notSent(e)) {
        throw e;
      }
      reconnect.run();
      return command.get();
    }
  }

  private <T> T send(Script script, ScriptOutputType type, byte[] key, byte[]... args) {
    byte[][] keys = {key};
    try {
      return redis.evalsha(script.sha(), type, keys, args);
    } catch (RedisNoScriptException notLoaded) {
      return redis.eval(script.body(), type, keys, args);
    }
  }
}
