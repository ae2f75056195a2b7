package dev.mcpgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A process to be killed at a random moment: runs refunds through a gate with the default policy (a
 * 5 s lease, renewed every 1.25 s), one thread per key. Each refund writes a row in the same
 * database transaction as its completion (the same-database effect) and appends a line carrying its
 * downstream key to a file (the external effect), with pauses between the phases. It tells its
 * progress on standard output, so that the test knows which phase each key was in when the process
 * died.
 *
 * <p>Arguments: JDBC URL, user, password, claims table, effects file, seed, keys...
 */
public final class CrashWorker {
  static final String EFFECTS = "mcpgate_crash_effects";
  private static volatile boolean child;

  private CrashWorker() {}

  public static void main(String[] args) throws Exception {
    child = true;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    if (!args[1].isEmpty()) {
      config.setUsername(args[1]);
      config.setPassword(args[2]);
    }
    config.setMaximumPoolSize(16);
    HikariDataSource pool = new HikariDataSource(config);
    JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(args[3]).build();
    store.verify();
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    Path file = Path.of(args[4]);
    long seed = Long.parseLong(args[5]);
    say("READY");
    List<Thread> threads = new ArrayList<>();
    for (int i = 6; i < args.length; i++) {
      String key = args[i];
      Random random = new Random(seed + i);
      Thread t =
          new Thread(
              () -> {
                try {
                  pause(
                      random,
                      300); // keys start at different moments: some are unclaimed at the kill
                } catch (InterruptedException e) {
                  return;
                }
                refund(gate, store, file, key, random, 200, "child");
              });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    say("ALL DONE");
    Thread.sleep(60_000); // the test kills the process; it never exits by itself
  }

  /**
   * One refund through the gate, pausing up to {@code pauseMs} between its phases; the test's
   * retries run this same code, without pauses.
   */
  static GateResult<String> refund(
      IdempotencyGate gate,
      JdbcIdempotencyStore store,
      Path file,
      String key,
      Random random,
      int pauseMs,
      String who) {
    GateResult<String> result =
        gate.execute(
            call(key),
            ResultMapper.utf8(),
            store.transactions(),
            (c, ctx) -> {
              say("CLAIMED " + key);
              pause(random, pauseMs);
              insertEffect(c, key, ctx.attempt(), who);
              say("WROTE " + key);
              pause(random, pauseMs);
              appendLine(file, key + " " + ctx.downstreamKey() + " " + ctx.attempt() + " " + who);
              say("SENT " + key);
              pause(random, pauseMs);
              return "refunded " + key + " by " + who + ", attempt " + ctx.attempt();
            });
    if (result instanceof GateResult.Executed<String> executed
        && executed.completion() == GateResult.Completion.STORED) {
      say("COMPLETED " + key + " " + executed.value());
    }
    return result;
  }

  static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", key, "amount", 500));
  }

  private static void insertEffect(Connection c, String key, int attempt, String who)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO " + EFFECTS + " (claim_key, attempt, who) VALUES (?, ?, ?)")) {
      ps.setString(1, key);
      ps.setInt(2, attempt);
      ps.setString(3, who);
      ps.executeUpdate();
    }
  }

  private static void appendLine(Path file, String line) throws IOException {
    Files.write(
        file,
        (line + "\n").getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND,
        StandardOpenOption.WRITE);
  }

  private static void pause(Random random, int maxMs) throws InterruptedException {
    Thread.sleep(random.nextInt(maxMs + 1));
  }

  private static synchronized void say(String line) {
    if (!child) {
      return;
    }
    System.out.println(line);
    System.out.flush();
  }
}
