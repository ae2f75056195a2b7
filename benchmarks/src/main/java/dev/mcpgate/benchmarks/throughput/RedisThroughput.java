package dev.mcpgate.benchmarks.throughput;

import static dev.mcpgate.benchmarks.throughput.JdbcThroughput.median;
import static dev.mcpgate.benchmarks.throughput.JdbcThroughput.perSecond;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Redis throughput, in one run: the raw Redis floor, MCP Gate on Redis, and MCP Gate on PostgreSQL
 * for scale. The floor is what a hand-written Redis idempotency check does at the least: a fresh
 * call claims its key ({@code SET key NX PX}) and then stores its result over the claim ({@code SET
 * key result XX PX}), two round trips; a replay is one {@code GET}. Rounds interleave, medians of
 * the rounds, ratios to the floor and to the PostgreSQL store.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.mcpgate.benchmarks.throughput.RedisThroughput \
 *     redis://127.0.0.1:6379 "jdbc:postgresql://127.0.0.1:5432/test?user=postgres" 8 3000 3
 * </pre>
 */
public final class RedisThroughput {
  private static final String RESULT = "x".repeat(64);
  private static final String FLOOR = "raw Redis floor (SET NX + SET XX / GET)";

  private RedisThroughput() {}

  /**
   * @param args Redis URL, JDBC URL, threads, keys, rounds
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: RedisThroughput REDIS_URL JDBC_URL THREADS KEYS ROUNDS");
      System.exit(2);
    }
    int threads = Integer.parseInt(args[2]);
    int keys = Integer.parseInt(args[3]);
    int rounds = Integer.parseInt(args[4]);
    RedisClient client = RedisClient.create(RedisURI.create(args[0]));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[1]);
    config.setMaximumPoolSize(threads + 2);
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    try (StatefulRedisConnection<String, String> raw = client.connect();
        RedisIdempotencyStore redisStore =
            RedisIdempotencyStore.builder(client).keyPrefix("mcpgate-bench:").build();
        HikariDataSource pool = new HikariDataSource(config)) {
      RedisCommands<String, String> redis = raw.sync();
      try (var c = pool.getConnection();
          var st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS bench_claims_redis_run");
      }
      IdempotencyStore pgStore =
          JdbcIdempotencyStore.builder(pool)
              .tableName("bench_claims_redis_run")
              .createSchemaIfMissing(true)
              .build();
      IdempotencyGate onRedis = IdempotencyGate.builder(redisStore).build();
      IdempotencyGate onPostgres = IdempotencyGate.builder(pgStore).build();
      for (int round = 0; round < rounds; round++) {
        List<String> batch = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
          batch.add("k-" + round + "-" + i + "-" + UUID.randomUUID());
        }
        measure(
            results,
            FLOOR,
            threads,
            batch,
            round,
            key -> {
              expect(
                  "OK"
                      .equals(
                          redis.set("bench:" + key, "claimed", SetArgs.Builder.nx().px(30_000))),
                  key);
              expect(
                  "OK"
                      .equals(
                          redis.set("bench:" + key, RESULT, SetArgs.Builder.xx().px(86_400_000))),
                  key);
            },
            key -> expect(redis.get("bench:" + key) != null, key));
        measure(
            results,
            "MCP Gate on Redis",
            threads,
            batch,
            round,
            key -> expect(gate(onRedis, key) instanceof GateResult.Executed, key),
            key -> expect(gate(onRedis, key) instanceof GateResult.Replayed, key));
        measure(
            results,
            "MCP Gate on PostgreSQL",
            threads,
            batch,
            round,
            key -> expect(gate(onPostgres, key) instanceof GateResult.Executed, key),
            key -> expect(gate(onPostgres, key) instanceof GateResult.Replayed, key));
      }
    } finally {
      client.shutdown();
    }
    print(threads, keys, rounds, results);
  }

  private static GateResult<String> gate(IdempotencyGate gate, String key) {
    return gate.execute(
        ToolCall.of("acme", "send_mail", key, Map.of("to", key)),
        ResultMapper.utf8(),
        ctx -> RESULT);
  }

  private static void expect(boolean condition, String key) {
    if (!condition) {
      throw new IllegalStateException("unexpected answer for " + key);
    }
  }

  private static void measure(
      Map<String, List<double[]>> results,
      String name,
      int threads,
      List<String> keys,
      int round,
      JdbcThroughput.KeyAction fresh,
      JdbcThroughput.KeyAction replay)
      throws Exception {
    List<String> order = new ArrayList<>(keys);
    double f = perSecond(threads, order, fresh);
    Collections.shuffle(order, new Random(round));
    double r = perSecond(threads, order, replay);
    results.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {f, r});
    System.err.printf(
        Locale.ROOT, "round %d  %-32s fresh %8.0f/s  replay %8.0f/s%n", round, name, f, r);
  }

  private static void print(
      int threads, int keys, int rounds, Map<String, List<double[]>> results) {
    Map<String, double[]> medians = new LinkedHashMap<>();
    results.forEach(
        (name, runs) -> medians.put(name, new double[] {median(runs, 0), median(runs, 1)}));
    double[] floor = medians.get(FLOOR);
    double[] postgres = medians.get("MCP Gate on PostgreSQL");
    System.out.printf(
        Locale.ROOT,
        "%nRedis, %d threads, %d keys, %d rounds (medians)%n%n",
        threads,
        keys,
        rounds);
    System.out.println(
        "| contender | fresh/s | replay/s | fresh vs floor | replay vs floor"
            + " | fresh vs gate on PostgreSQL | replay vs gate on PostgreSQL |");
    System.out.println("|---|---|---|---|---|---|---|");
    medians.forEach(
        (name, m) ->
            System.out.printf(
                Locale.ROOT,
                "| %s | %.0f | %.0f | %.2fx | %.2fx | %.2fx | %.2fx |%n",
                name,
                m[0],
                m[1],
                m[0] / floor[0],
                m[1] / floor[1],
                m[0] / postgres[0],
                m[1] / postgres[1]));
  }
}
