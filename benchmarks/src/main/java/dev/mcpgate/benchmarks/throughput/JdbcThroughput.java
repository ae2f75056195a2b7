package dev.mcpgate.benchmarks.throughput;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * JDBC throughput, side by side in one run on one database: the raw two-commit floor, the ungated
 * business INSERT, Apache Camel's and Spring Integration's JDBC stores, and MCP Gate plain,
 * transactional and single-commit. Rounds interleave the contenders (A B C ... A B C), each round
 * on fresh tables and new keys; the medians are printed with their ratios to the floors. A
 * throughput harness, not JMH: the work is a database round trip, not a JIT-sized loop.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.mcpgate.benchmarks.throughput.JdbcThroughput \
 *     "jdbc:postgresql://127.0.0.1:5432/test?user=postgres" 8 3000 3
 * </pre>
 *
 * Arguments: JDBC URL, threads, keys per round, rounds, and optionally words that pick contenders
 * (a contender runs when its name contains one of them; the three floors always run).
 */
public final class JdbcThroughput {
  private JdbcThroughput() {}

  /**
   * @param args URL, threads, keys, rounds
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: JdbcThroughput JDBC_URL THREADS KEYS ROUNDS [NAME_WORD...]");
      System.exit(2);
    }
    String url = args[0];
    int threads = Integer.parseInt(args[1]);
    int keys = Integer.parseInt(args[2]);
    int rounds = Integer.parseInt(args[3]);
    Contender.Database database = Contender.Database.of(url);
    List<String> words = Arrays.asList(args).subList(4, args.length);
    List<Contender> contenders =
        new ArrayList<>(
            List.of(
                new RawFloor(),
                new UngatedInsert(),
                new CamelRepository(),
                new SpringMetadataStore(),
                new GateContender(GateContender.Mode.PLAIN),
                new GateContender(GateContender.Mode.TRANSACTIONAL),
                new GateContender(GateContender.Mode.SINGLE_COMMIT),
                new UngatedTransaction(),
                new GateContender(GateContender.Mode.SINGLE_COMMIT_TRANSFER),
                new GateContender(GateContender.Mode.PLAIN_CACHED),
                new GateContender(GateContender.Mode.PLAIN_NO_PROCEDURES)));
    contenders.removeIf(
        c ->
            !words.isEmpty()
                && !(c instanceof RawFloor)
                && !(c instanceof UngatedInsert)
                && !(c instanceof UngatedTransaction)
                && words.stream().noneMatch(w -> c.name().contains(w)));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(threads + 2);
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    try (HikariDataSource pool = new HikariDataSource(config)) {
      for (int round = 0; round < rounds; round++) {
        for (Contender contender : contenders) {
          contender.reset(pool, database);
          List<String> batch = new ArrayList<>(keys);
          for (int i = 0; i < keys; i++) {
            batch.add("k-" + round + "-" + i + "-" + UUID.randomUUID());
          }
          double fresh = perSecond(threads, batch, contender::fresh);
          Collections.shuffle(batch, new Random(round));
          double replay = perSecond(threads, batch, contender::replay);
          // a second replay of each key: what a near-cache answers from memory (its first replay
          // of a key reads the completed row from the store and keeps it)
          Collections.shuffle(batch, new Random(round + 1));
          double again = perSecond(threads, batch, contender::replay);
          results
              .computeIfAbsent(contender.name(), k -> new ArrayList<>())
              .add(new double[] {fresh, replay, again});
          System.err.printf(
              Locale.ROOT,
              "round %d  %-38s fresh %8.0f/s  replay %8.0f/s  again %8.0f/s%n",
              round,
              contender.name(),
              fresh,
              replay,
              again);
        }
      }
    }
    print(database, threads, keys, rounds, results);
    System.exit(0); // Camel's context keeps non-daemon threads
  }

  /** One operation on one key. */
  interface KeyAction {
    void run(String key) throws Exception;
  }

  /**
   * @return how many keys a second {@code threads} threads get through, each key once
   */
  static double perSecond(int threads, List<String> keys, KeyAction action) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicInteger next = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      workers.add(
          pool.submit(
              () -> {
                start.await();
                int i;
                while ((i = next.getAndIncrement()) < keys.size()) {
                  action.run(keys.get(i));
                }
                return null;
              }));
    }
    long began = System.nanoTime();
    start.countDown();
    for (Future<?> worker : workers) {
      worker.get();
    }
    long nanos = System.nanoTime() - began;
    pool.shutdown();
    return keys.size() / (nanos / 1e9);
  }

  static double median(List<double[]> runs, int column) {
    double[] values = runs.stream().mapToDouble(r -> r[column]).sorted().toArray();
    return values.length % 2 == 1
        ? values[values.length / 2]
        : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
  }

  private static void print(
      Contender.Database database,
      int threads,
      int keys,
      int rounds,
      Map<String, List<double[]>> results) {
    Map<String, double[]> medians = new LinkedHashMap<>();
    results.forEach(
        (name, runs) ->
            medians.put(name, new double[] {median(runs, 0), median(runs, 1), median(runs, 2)}));
    double[] floor = medians.get(new RawFloor().name());
    double[] ungated = medians.get(new UngatedInsert().name());
    double[] transaction = medians.get(new UngatedTransaction().name());
    System.out.printf(
        Locale.ROOT,
        "%n%s, %d threads, %d keys, %d rounds (medians)%n%n",
        database,
        threads,
        keys,
        rounds);
    System.out.println(
        "| contender | fresh/s | replay/s | replay again/s | fresh vs floor | replay vs PK SELECT"
            + " | again vs PK SELECT | fresh vs ungated INSERT | fresh vs ungated transaction |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    medians.forEach(
        (name, m) ->
            System.out.printf(
                Locale.ROOT,
                "| %s | %.0f | %.0f | %.0f | %.2fx | %.2fx | %.2fx | %.2fx | %.2fx |%n",
                name,
                m[0],
                m[1],
                m[2],
                m[0] / floor[0],
                m[1] / floor[1],
                m[2] / floor[2],
                m[0] / ungated[0],
                m[0] / transaction[0]));
    System.out.println();
    System.out.println(
        "raw runs: "
            + results.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue().stream().map(Arrays::toString).toList())
                .toList());
  }
}
