package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.DownstreamKey;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.spi.ClaimState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * kill -9 at random moments, on PostgreSQL: a child JVM ({@link CrashWorker}) runs refunds through
 * a gate with the default policy and is SIGKILLed at a random point, in whatever phase each of its
 * refunds is (not yet claimed, claimed, same-database write done, external effect sent, committed);
 * then this process retries every refund with the same key, as a client would. Over all rounds: no
 * same-database effect twice, external effects re-run only with the same downstream key, no
 * completed result lost, no key left stuck, and how long a retry took to succeed after the kill
 * (reported in {@code target/crash-recovery.txt}).
 */
class CrashRecoveryTest {
  @AfterAll
  static void closePools() {
    TestDatabases.closePools("crash"); // their connections would stay open for the later suites
  }

  private static final String TABLE = "mcpgate_crash_claims";
  private static final int ROUNDS = Integer.getInteger("mcpgate.crash.rounds", 24);
  private static final int KEYS_PER_ROUND = 6;
  private static final int LONG_ACTION_SECONDS =
      Integer.getInteger("mcpgate.longAction.seconds", 30);
  private static final long SEED = Long.getLong("mcpgate.crash.seed", System.nanoTime());

  @Test
  void killedProcessesAreRecoveredByRetriesWithoutDuplicateEffects() throws Exception {
    TestDatabases.Target target = TestDatabases.postgres();
    HikariDataSource pool = TestDatabases.pool(target, "crash", 16);
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + TABLE);
      st.execute("DROP TABLE IF EXISTS " + CrashWorker.EFFECTS);
      st.execute(
          "CREATE TABLE "
              + CrashWorker.EFFECTS
              + " (claim_key VARCHAR(100) NOT NULL,"
              + " attempt INT NOT NULL, who VARCHAR(20) NOT NULL)");
    }
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool).tableName(TABLE).createSchemaIfMissing(true).build();
    store.verify();
    IdempotencyGate gate = IdempotencyGate.builder(store).build(); // the default policy
    Path file = Files.createTempFile("mcpgate-crash-", ".effects");
    Random random = new Random(SEED);

    Map<String, String> phaseAtKill = new TreeMap<>();
    Map<String, String> completedByChild = new HashMap<>();
    Map<String, GateResult<String>> retried = new ConcurrentHashMap<>();
    List<Long> recoveryMs = new CopyOnWriteArrayList<>();
    List<Long> heldRecoveryMs = new CopyOnWriteArrayList<>();
    List<String> stuck = new CopyOnWriteArrayList<>();
    ExecutorService retries = Executors.newFixedThreadPool(KEYS_PER_ROUND);
    try {
      for (int round = 0; round < ROUNDS; round++) {
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < KEYS_PER_ROUND; k++) {
          keys.add("r" + round + "-k" + k);
        }
        Map<String, String> phases = new ConcurrentHashMap<>();
        keys.forEach(k -> phases.put(k, "not claimed"));
        Map<String, String> completed = new ConcurrentHashMap<>();
        long killedAt =
            killChildAtRandom(
                target, file, keys, random.nextLong(), random.nextInt(700), phases, completed);
        phaseAtKill.putAll(phases);
        completedByChild.putAll(completed);

        List<Future<?>> pending = new ArrayList<>();
        for (String key : keys) {
          pending.add(
              retries.submit(
                  () -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (System.nanoTime() < deadline) {
                      GateResult<String> r =
                          CrashWorker.refund(gate, store, file, key, random, 0, "retry");
                      if (r instanceof GateResult.Replayed
                          || r instanceof GateResult.Executed<String> e
                              && e.completion() == GateResult.Completion.STORED) {
                        long ms = (System.nanoTime() - killedAt) / 1_000_000;
                        retried.put(key, r);
                        recoveryMs.add(ms);
                        if (!phases.get(key).equals("not claimed") && !completed.containsKey(key)) {
                          heldRecoveryMs.add(ms);
                        }
                        return;
                      }
                    }
                    stuck.add(key);
                  }));
        }
        for (Future<?> f : pending) {
          f.get(60, TimeUnit.SECONDS);
        }
      }
    } finally {
      retries.shutdownNow();
    }

    // no key stuck, every row completed
    assertThat(stuck).as("keys no retry could finish").isEmpty();
    for (String key : phaseAtKill.keySet()) {
      assertThat(store.find(CrashWorker.call(key).id()).orElseThrow().state())
          .as(key)
          .isEqualTo(ClaimState.COMPLETED);
    }
    // the same-database effect: exactly once per key, by the attempt whose result is stored
    Map<String, Integer> effects = effectCounts(pool);
    assertThat(effects.keySet()).containsExactlyInAnyOrderElementsOf(phaseAtKill.keySet());
    assertThat(effects).allSatisfy((key, n) -> assertThat(n).as(key).isEqualTo(1));
    // no completed result lost: what the child completed, the retry replays, word for word
    for (Map.Entry<String, String> done : completedByChild.entrySet()) {
      assertThat(retried.get(done.getKey()))
          .as(done.getKey())
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo(done.getValue()));
    }
    // external effects: re-run only with the same downstream key
    Map<String, Integer> sends = new TreeMap<>();
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split(" ");
      assertThat(f[1]).as(line).isEqualTo(DownstreamKey.of(CrashWorker.call(f[0]).id()));
      sends.merge(f[0], 1, Integer::sum);
    }
    long resent = sends.values().stream().filter(n -> n > 1).count();
    // the kills hit every phase
    Map<String, Long> histogram = new TreeMap<>();
    phaseAtKill.values().forEach(p -> histogram.merge(p, 1L, Long::sum));
    assertThat(histogram).containsKeys("not claimed", "claimed", "wrote", "sent", "completed");

    String report = report(histogram, completedByChild.size(), resent, recoveryMs, heldRecoveryMs);
    System.out.println(report);
    Files.writeString(Path.of("target", "crash-recovery.txt"), report);
    Files.deleteIfExists(file);

    // with the default lease (5 s), a retry succeeds within about one lease of the kill
    assertThat(Collections.max(recoveryMs))
        .as(report)
        .isLessThan(GatePolicy.defaults().lease().toMillis() + 1_500);
  }

  @Test
  void aLongActionInALiveProcessIsNeverTakenOver() throws Exception {
    HikariDataSource pool = TestDatabases.pool(TestDatabases.postgres(), "crash", 16);
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool).tableName(TABLE).createSchemaIfMissing(true).build();
    IdempotencyGate gate = IdempotencyGate.builder(store).build(); // 5 s lease, 1.25 s renewal
    IdempotencyGate retrying =
        gate.withPolicy(gate.policy().toBuilder().inFlightWait(Duration.ZERO).build());
    String key = "long-" + System.nanoTime();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> longCall =
        CompletableFuture.supplyAsync(
            () ->
                gate.execute(
                    CrashWorker.call(key),
                    ResultMapper.utf8(),
                    ctx -> {
                      runs.incrementAndGet();
                      started.countDown();
                      Thread.sleep(LONG_ACTION_SECONDS * 1000L);
                      return "done after "
                          + LONG_ACTION_SECONDS
                          + " s, lease lost: "
                          + ctx.isLeaseLost();
                    }));
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

    Map<RefusalReason, Integer> refusals = new TreeMap<>();
    while (!longCall.isDone()) {
      GateResult<String> retry =
          retrying.execute(
              CrashWorker.call(key),
              ResultMapper.utf8(),
              ctx -> "retry ran, attempt " + runs.incrementAndGet());
      if (retry instanceof GateResult.Refused<String> r) {
        refusals.merge(r.reason(), 1, Integer::sum);
      }
      Thread.sleep(1_000);
    }

    assertThat(longCall.get())
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> {
              assertThat(e.value())
                  .isEqualTo("done after " + LONG_ACTION_SECONDS + " s, lease lost: false");
              assertThat(e.completion()).isEqualTo(GateResult.Completion.STORED);
            });
    assertThat(runs).hasValue(1);
    assertThat(refusals.keySet()).containsExactly(RefusalReason.IN_PROGRESS);
    assertThat(refusals.get(RefusalReason.IN_PROGRESS))
        .isGreaterThanOrEqualTo(LONG_ACTION_SECONDS / 2);
  }

  /**
   * Starts a worker on {@code keys}, kills it {@code afterMs} after it is ready, and records the
   * phase each key was in and the results it completed.
   *
   * @return when it was killed, in {@link System#nanoTime()}
   */
  private static long killChildAtRandom(
      TestDatabases.Target target,
      Path file,
      List<String> keys,
      long seed,
      int afterMs,
      Map<String, String> phases,
      Map<String, String> completed)
      throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                CrashWorker.class.getName(),
                target.url(),
                target.user() == null ? "" : target.user(),
                target.password() == null ? "" : target.password(),
                TABLE,
                file.toString(),
                Long.toString(seed)));
    command.addAll(keys);
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      do {
        line = out.readLine();
      } while (line != null && !line.equals("READY"));
      assertThat(line).as("the worker started").isEqualTo("READY");
      Thread reader = new Thread(() -> follow(out, phases, completed));
      reader.start();
      Thread.sleep(afterMs);
      child.destroyForcibly(); // SIGKILL: no rollback, no release, no goodbye
      long killedAt = System.nanoTime();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      reader.join(10_000);
      return killedAt;
    } finally {
      child.destroyForcibly();
    }
  }

  private static void follow(
      BufferedReader out, Map<String, String> phases, Map<String, String> completed) {
    try {
      String line;
      while ((line = out.readLine()) != null) {
        String[] words = line.split(" ", 3);
        switch (words[0]) {
          case "CLAIMED" -> phases.put(words[1], "claimed");
          case "WROTE" -> phases.put(words[1], "wrote");
          case "SENT" -> phases.put(words[1], "sent");
          case "COMPLETED" -> {
            phases.put(words[1], "completed");
            completed.put(words[1], words[2]);
          }
          default -> {}
        }
      }
    } catch (IOException e) {
      // the process died mid-line: what was read is what it told
    }
  }

  private static Map<String, Integer> effectCounts(HikariDataSource pool) throws SQLException {
    Map<String, Integer> counts = new TreeMap<>();
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT claim_key, COUNT(*) FROM " + CrashWorker.EFFECTS + " GROUP BY claim_key")) {
      while (rs.next()) {
        counts.put(rs.getString(1), rs.getInt(2));
      }
    }
    return counts;
  }

  private static String report(
      Map<String, Long> phases,
      int completed,
      long resent,
      List<Long> recoveryMs,
      List<Long> heldRecoveryMs) {
    return String.format(
        "crash recovery on PostgreSQL (seed %d): %d SIGKILLs, %d refunds;"
            + " phase at the kill %s; completed by the killed process and replayed: %d;"
            + " same-database effects twice: 0; external effects re-sent (same downstream key):"
            + " %d; keys stuck: 0; time from the kill to a successful retry: all keys median %d"
            + " ms, max %d ms; keys held by the killed process (%d): median %d ms, max %d ms%n",
        SEED,
        ROUNDS,
        phases.values().stream().mapToLong(Long::longValue).sum(),
        phases,
        completed,
        resent,
        median(recoveryMs),
        Collections.max(recoveryMs),
        heldRecoveryMs.size(),
        median(heldRecoveryMs),
        heldRecoveryMs.isEmpty() ? 0 : Collections.max(heldRecoveryMs));
  }

  private static long median(List<Long> values) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
