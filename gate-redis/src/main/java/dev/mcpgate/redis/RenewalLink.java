package dev.mcpgate.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One renewal connection of the {@link RenewalPipeline}, and the pipelined run of one script per
 * key on it: every script sent before any answer is awaited, a refused or unsent key sent again as
 * {@code EVAL} until the deadline, a key that did not answer left undecided.
 */
final class RenewalLink {
  /** How long a round of resending waits for node connections that a cluster client is making. */
  private static final long RESEND_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final StatefulConnection<byte[], byte[]> connection;
  private final RedisScriptingAsyncCommands<byte[], byte[]> async;
  final boolean heldFlush; // one server's connection; else a cluster's
  private final CompletableFuture<Void> named; // never fails
  int users; // guarded by the pipeline's lock: calls using it now
  boolean retired; // guarded by the pipeline's lock: closed when its last user is done

  private RenewalLink(
      StatefulConnection<byte[], byte[]> connection,
      RedisScriptingAsyncCommands<byte[], byte[]> async,
      boolean heldFlush,
      RedisFuture<String> setName) {
    this.connection = connection;
    this.async = async;
    this.heldFlush = heldFlush;
    this.named = setName.toCompletableFuture().handle((ok, refused) -> null);
    connection.setAutoFlushCommands(!heldFlush);
  }

  /** A link on one server's connection, flushed once per batch. */
  static RenewalLink of(StatefulRedisConnection<byte[], byte[]> connection) {
    return new RenewalLink(
        connection, connection.async(), true, connection.async().clientSetname(name()));
  }

  /**
   * A link on a cluster connection: every script goes to the node of its key's slot. Naming it
   * connects every node ({@code CLIENT SETNAME} goes to each), which is not waited for.
   */
  static RenewalLink of(StatefulRedisClusterConnection<byte[], byte[]> connection) {
    return new RenewalLink(
        connection, connection.async(), false, connection.async().clientSetname(name()));
  }

  private static byte[] name() {
    return RenewalPipeline.CLIENT_NAME.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Sends the script for the keys at {@code only} (all of them when null): {@code EVALSHA}, or
   * {@code EVAL} when {@code eval}, which runs and caches the script on the node.
   */
  private List<RedisFuture<Long>> send(
      ScriptRunner.Script script,
      List<byte[]> keys,
      List<byte[][]> args,
      List<Integer> only,
      boolean eval) {
    List<RedisFuture<Long>> sent = new ArrayList<>();
    try {
      int n = only == null ? keys.size() : only.size();
      for (int j = 0; j < n; j++) {
        int i = only == null ? j : only.get(j);
        byte[][] key = {keys.get(i)};
        sent.add(
            eval
                ? async.eval(script.body(), ScriptOutputType.INTEGER, key, args.get(i))
                : async.evalsha(script.sha(), ScriptOutputType.INTEGER, key, args.get(i)));
      }
    } finally {
      if (heldFlush) {
        connection.flushCommands();
      }
    }
    return sent;
  }

  boolean isOpen() {
    return connection.isOpen();
  }

  void close() {
    connection.closeAsync();
  }

  /**
   * Runs {@code script} once per key on this connection, as {@link RenewalPipeline#run} says; a
   * send that failed, or answers that show the connection broken, run {@code failed} first.
   */
  Long[] run(
      ScriptRunner.Script script,
      List<byte[]> keys,
      List<byte[][]> args,
      long deadline,
      Duration within,
      Runnable failed) {
    int n = keys.size();
    Long[] replies = new Long[n];
    List<RedisFuture<Long>> sent;
    try {
      sent = send(script, keys, args, null, false);
    } catch (RedisException e) {
      failed.run();
      throw e;
    }
    Answers answers = new Answers();
    List<Integer> again = new ArrayList<>(); // not loaded there, or rejected unsent
    boolean unsent = false;
    for (int i = 0; i < n; i++) {
      try {
        replies[i] = await(sent.get(i), deadline);
      } catch (RedisNoScriptException notLoaded) {
        again.add(i);
      } catch (RedisException e) {
        if (ScriptRunner.notSent(e)) {
          again.add(i);
          unsent = true;
        } else {
          answers.failed(e);
        }
      }
    }
    // sent again, as EVAL, until the deadline: a node that did not know the script, and a node
    // whose connection a cluster client was still making when it rejected the command unsent. The
    // pause between rounds is short and waits for no node in particular: one silent node must
    // not hold back the others' keys (their connections are made within milliseconds).
    while (!again.isEmpty() && !answers.broken && System.nanoTime() - deadline < 0) {
      if (unsent) {
        awaitQuietly(named, Math.min(deadline, System.nanoTime() + RESEND_PAUSE_NANOS));
      }
      List<Integer> round = again;
      again = new ArrayList<>();
      unsent = false;
      List<RedisFuture<Long>> resent;
      try {
        resent = send(script, keys, args, round, true); // runs and caches it there
      } catch (RedisException e) {
        answers.failed(e);
        break;
      }
      for (int j = 0; j < resent.size(); j++) {
        try {
          replies[round.get(j)] = await(resent.get(j), deadline);
        } catch (RedisException e) {
          if (ScriptRunner.notSent(e)) {
            again.add(round.get(j));
            unsent = true;
          }
          answers.failed(e);
        }
      }
    }
    if (answers.broken) {
      failed.run();
    }
    for (Long reply : replies) {
      if (reply != null) {
        return replies;
      }
    }
    throw new RedisException(
        "Redis answered none of "
            + n
            + " renewal scripts within "
            + within.toMillis()
            + " ms"
            + (answers.first == null ? "" : ": " + answers.first.getMessage()),
        answers.first);
  }

  /** What went wrong with the keys that did not answer. */
  private static final class Answers {
    RedisException first;
    boolean broken; // the connection timed out or failed: not used again

    void failed(RedisException e) {
      if (first == null) {
        first = e;
      }
      if (ScriptRunner.notSent(e)) {
        return; // never sent: the connection is still being made, not stuck
      }
      // a server's error reply (a script error, BUSY, LOADING, OOM) leaves the connection usable;
      // a timeout or a broken connection does not, nor a connection to a master that became a
      // replica (READONLY: after a fail-over, the master is elsewhere and a new connection finds
      // it)
      if (!(e instanceof RedisCommandExecutionException)
          && !(e instanceof RedisCommandInterruptedException)) {
        broken = true;
      } else if (e.getMessage() != null && e.getMessage().startsWith("READONLY")) {
        broken = true;
      }
    }
  }

  private static <T> T await(Future<T> future, long deadlineNanos) {
    try {
      return future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RedisException redis) {
        throw redis;
      }
      throw new RedisException(e.getCause());
    } catch (TimeoutException e) {
      throw new RedisCommandTimeoutException("the renewal pipeline did not answer in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisCommandInterruptedException(e);
    }
  }

  private static void awaitQuietly(Future<?> future, long deadlineNanos) {
    try {
      await(future, deadlineNanos);
    } catch (RedisException notYet) {
      // sent again all the same: what is still rejected stays undecided
    }
  }
}
