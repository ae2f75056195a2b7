package dev.mcpgate.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The renewals' own connection, which no tool's command shares: it runs one script per key ({@code
 * EVALSHA}, one key each, so every script stays in its key's slot in Redis Cluster) as one
 * pipeline: every script is sent before any answer is awaited, so that a renewal of n leases is one
 * round trip. On one server the scripts are also written and flushed together. On a cluster
 * connection each script is written as it is sent (Lettuce routes it to its slot's node, opening
 * that node's connection on demand, which a held-back flush could strand); the nodes answer in
 * parallel, so the batch still costs one round trip. A node that does not know the script yet (a
 * restart, a failover, {@code SCRIPT FLUSH}) is sent the keys it refused once more as {@code EVAL},
 * which runs and caches the script there: a second round trip. One batch at a time. The connection
 * names itself {@value #CLIENT_NAME} ({@code CLIENT SETNAME}; on a cluster, on every node
 * connection).
 */
final class RenewalPipeline implements AutoCloseable {
  private final StatefulConnection<byte[], byte[]> connection;
  private final RedisScriptingAsyncCommands<byte[], byte[]> async;
  private final boolean heldFlush;

  /** The name the renewal connection gives itself, for {@code CLIENT LIST}. */
  static final String CLIENT_NAME = "mcpgate-renewals";

  private RenewalPipeline(
      StatefulConnection<byte[], byte[]> connection,
      RedisScriptingAsyncCommands<byte[], byte[]> async,
      boolean heldFlush) {
    this.connection = connection;
    this.async = async;
    this.heldFlush = heldFlush;
    connection.setAutoFlushCommands(!heldFlush);
  }

  /** A pipeline on one server's connection, flushed once per batch. */
  static RenewalPipeline of(StatefulRedisConnection<byte[], byte[]> connection) {
    name(() -> connection.sync().clientSetname(name()));
    return new RenewalPipeline(connection, connection.async(), true);
  }

  /** A pipeline on a cluster connection: every script goes to the node of its key's slot. */
  static RenewalPipeline of(StatefulRedisClusterConnection<byte[], byte[]> connection) {
    name(() -> connection.sync().clientSetname(name()));
    return new RenewalPipeline(connection, connection.async(), false);
  }

  private static byte[] name() {
    return CLIENT_NAME.getBytes(StandardCharsets.US_ASCII);
  }

  private static void name(Runnable setName) {
    try {
      setName.run();
    } catch (RedisCommandExecutionException refused) {
      // a server that refuses CLIENT SETNAME (an ACL) renews all the same, unnamed
    }
  }

  /**
   * Runs {@code script} once per key, with that key's arguments, in one pipeline.
   *
   * @param within the longest wait for the answers (the connection's timeout if shorter): a renewal
   *     late past half a lease is no use, and a slow node must not hold the renewals of the others
   *     (they are sent again next period)
   * @return each key's integer reply, in the keys' order
   * @throws RedisException if the server could not be asked, a script failed or the answers did not
   *     all come within the wait (then which scripts ran is not known)
   */
  synchronized List<Long> run(
      ScriptRunner.Script script, List<byte[]> keys, List<byte[][]> args, Duration within) {
    Duration wait = timeout().compareTo(within) < 0 ? timeout() : within;
    long deadline = System.nanoTime() + wait.toNanos();
    List<Long> replies = new ArrayList<>(keys.size());
    List<Integer> unknownScript = new ArrayList<>();
    List<RedisFuture<Long>> sent = send(script, keys, args, null);
    for (int i = 0; i < sent.size(); i++) {
      try {
        replies.add(await(sent.get(i), deadline));
      } catch (RedisNoScriptException notLoaded) {
        replies.add(null);
        unknownScript.add(i);
      }
    }
    if (!unknownScript.isEmpty()) {
      List<RedisFuture<Long>> again = send(script, keys, args, unknownScript);
      for (int j = 0; j < again.size(); j++) {
        replies.set(unknownScript.get(j), await(again.get(j), deadline));
      }
    }
    return replies;
  }

  private List<RedisFuture<Long>> send(
      ScriptRunner.Script script, List<byte[]> keys, List<byte[][]> args, List<Integer> only) {
    List<RedisFuture<Long>> sent = new ArrayList<>();
    try {
      if (only == null) {
        for (int i = 0; i < keys.size(); i++) {
          sent.add(evalsha(script, keys.get(i), args.get(i)));
        }
      } else {
        for (int i : only) {
          sent.add(eval(script, keys.get(i), args.get(i))); // runs and caches it there
        }
      }
    } finally {
      if (heldFlush) {
        connection.flushCommands();
      }
    }
    return sent;
  }

  private RedisFuture<Long> evalsha(ScriptRunner.Script script, byte[] key, byte[][] args) {
    byte[][] keys = {key};
    return async.evalsha(script.sha(), ScriptOutputType.INTEGER, keys, args);
  }

  private RedisFuture<Long> eval(ScriptRunner.Script script, byte[] key, byte[][] args) {
    byte[][] keys = {key};
    return async.eval(script.body(), ScriptOutputType.INTEGER, keys, args);
  }

  private Duration timeout() {
    Duration timeout = connection.getTimeout();
    return timeout == null || timeout.isZero() || timeout.isNegative()
        ? Duration.ofSeconds(60)
        : timeout;
  }

  private static <T> T await(RedisFuture<T> future, long deadlineNanos) {
    try {
      return future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RedisException redis) {
        throw redis;
      }
      throw new RedisException(e.getCause());
    } catch (TimeoutException e) {
      throw new RedisException("the renewal pipeline timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisException("interrupted while renewing leases", e);
    }
  }

  @Override
  public void close() {
    connection.close();
  }
}
