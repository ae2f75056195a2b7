package dev.mcpgate.benchmarks.throughput;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What MCP Gate's JDBC store costs as its claims table grows. For each size, on one database: the
 * store creates its table ({@code growth_claims}), which is filled with that many completed claims
 * ({@link ClaimsTable}: created over the last 48 h, a 24 h retention, so the older half is expired)
 * and analyzed; then, through the gate (plain mode, default policy, a no-op action with a 300-byte
 * result):
 *
 * <ol>
 *   <li>fresh calls (new keys) for {@code SECONDS}: calls per second, p50 and p99;
 *   <li>replays for {@code SECONDS}, cycling over 5,000 of the keys just made (a retry arrives soon
 *       after its call, so its row is a recent one);
 *   <li>the purge alone: {@code store.purgeExpired(500)} (what {@code ClaimPurger} and the
 *       starter's default batch run) in a loop for {@code SECONDS} or a third of the expired rows;
 *   <li>the purge beside fresh calls: the same loop and the fresh calls together for 4 x {@code
 *       SECONDS}, or until no expired row is left;
 *   <li>the table's and its indexes' size after the fill and after that churn; on PostgreSQL the
 *       dead rows then, and how long a plain {@code VACUUM} takes.
 * </ol>
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.mcpgate.benchmarks.throughput.GrowthThroughput \
 *     "jdbc:postgresql://127.0.0.1:5432/test?user=postgres" 8 30 0 1000000 10000000
 * </pre>
 *
 * Arguments: JDBC URL (PostgreSQL or MariaDB/MySQL), threads, seconds per measurement, then the
 * table sizes in rows. The table is dropped at the end. A size takes its fill plus about 4 minutes
 * at 30 s per measurement; filling 10,000,000 rows took about 10 minutes on PostgreSQL on the
 * 2-core CI machine (9 GB of disk). Figures and their reading: {@code docs/performance.md}.
 */
public final class GrowthThroughput {
  private static final String TABLE = "growth_claims";
  private static final Duration RETENTION = Duration.ofHours(24);
  private static final int PURGE_BATCH = 500;
  private static final int REPLAY_KEYS = 5_000;
  private static final String RESULT = "{\"status\":\"done\",\"note\":\"" + "x".repeat(272) + "\"}";

  private GrowthThroughput() {}

  /**
   * @param args URL, threads, seconds, sizes
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: GrowthThroughput JDBC_URL THREADS SECONDS ROWS...");
      System.exit(2);
    }
    String url = args[0];
    int threads = Integer.parseInt(args[1]);
    double seconds = Double.parseDouble(args[2]);
    Contender.Database database = Contender.Database.of(url);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(threads + 2);
    List<String> lines = new ArrayList<>();
    try (HikariDataSource pool = new HikariDataSource(config)) {
      ClaimsTable claims = new ClaimsTable(pool, database, TABLE);
      try {
        for (int a = 3; a < args.length; a++) {
          lines.add(measure(pool, claims, database, Long.parseLong(args[a]), threads, seconds));
          System.err.println(lines.get(lines.size() - 1));
        }
      } finally {
        claims.drop();
      }
    }
    System.out.printf(
        Locale.ROOT, "%n%s, %d threads, %.0f s per measurement%n%n", database, threads, seconds);
    System.out.println(
        "| rows | fill s | fresh/s | fresh p50 ms | fresh p99 ms | replay/s | replay p99 ms"
            + " | purge rows/s alone | purge rows/s beside claims | fresh/s beside purge"
            + " | fresh p99 ms beside purge | beside s | table MB | index MB"
            + " | table MB after churn | index MB after churn | dead rows after churn"
            + " | VACUUM s |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    lines.forEach(System.out::println);
  }

  private static String measure(
      HikariDataSource pool,
      ClaimsTable claims,
      Contender.Database database,
      long rows,
      int threads,
      double seconds)
      throws Exception {
    claims.drop();
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool).tableName(TABLE).createSchemaIfMissing(true).build();
    store.verify();
    long began = System.nanoTime();
    claims.fill(rows, RETENTION.multipliedBy(2), RETENTION);
    double fillSeconds = (System.nanoTime() - began) / 1e9;
    ClaimsTable.Size filled = claims.size();
    System.err.printf(Locale.ROOT, "%,d rows filled in %.0f s: %s%n", rows, fillSeconds, filled);
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    long run = UUID.randomUUID().getMostSignificantBits();
    AtomicLong keys = new AtomicLong();
    TimedLoad.Call fresh = i -> expectExecuted(gate, new UUID(run, i).toString());
    TimedLoad.run(threads, Math.min(5, seconds), keys, fresh, () -> false); // warm-up
    long firstKey = keys.get();
    TimedLoad.Result made = TimedLoad.run(threads, seconds, keys, fresh, () -> false);
    int replayKeys = (int) Math.min(REPLAY_KEYS, made.calls());
    TimedLoad.Result replayed =
        TimedLoad.run(
            threads,
            seconds,
            new AtomicLong(),
            i -> expectReplayed(gate, new UUID(run, firstKey + i * 7919 % replayKeys).toString()),
            () -> false);

    long expired = rows / 2;
    Purge alone =
        Purge.run(store, seconds, Math.max(PURGE_BATCH, expired / 3), new AtomicBoolean());
    AtomicBoolean stop = new AtomicBoolean();
    CompletableFuture<Purge> purging =
        CompletableFuture.supplyAsync(() -> Purge.run(store, 4 * seconds, Long.MAX_VALUE, stop));
    TimedLoad.Result beside =
        TimedLoad.run(threads, 4 * seconds, keys, fresh, () -> rows > 0 && purging.isDone());
    stop.set(true);
    Purge besideClaims = purging.join();
    ClaimsTable.Size churned = claims.size();
    began = System.nanoTime();
    claims.vacuum();
    double vacuumSeconds = (System.nanoTime() - began) / 1e9;
    gate.close();
    store.close();
    return String.format(
        Locale.ROOT,
        "| %,d | %.0f | %.0f | %.2f | %.2f | %.0f | %.2f | %s | %s | %.0f | %.2f | %.0f | %.0f"
            + " | %.0f | %.0f | %.0f | %s | %s |",
        rows,
        fillSeconds,
        made.perSecond(),
        made.p50Ms(),
        made.p99Ms(),
        replayed.perSecond(),
        replayed.p99Ms(),
        alone,
        besideClaims,
        beside.perSecond(),
        beside.p99Ms(),
        beside.seconds(),
        filled.tableMb(),
        filled.indexMb(),
        churned.tableMb(),
        churned.indexMb(),
        churned.dead() < 0 ? "-" : String.format(Locale.ROOT, "%,d", churned.dead()),
        database == Contender.Database.POSTGRESQL
            ? String.format(Locale.ROOT, "%.1f", vacuumSeconds)
            : "-");
  }

  private static void expectExecuted(IdempotencyGate gate, String key) {
    Sql.expect(call(gate, key) instanceof GateResult.Executed, "not executed", key);
  }

  private static void expectReplayed(IdempotencyGate gate, String key) {
    Sql.expect(call(gate, key) instanceof GateResult.Replayed, "not replayed", key);
  }

  private static GateResult<String> call(IdempotencyGate gate, String key) {
    ToolCall call = ToolCall.of("context:acme", "refund_order", key, Map.of("order_id", key));
    return gate.execute(call, ResultMapper.utf8(), ctx -> RESULT);
  }

  /** A purge loop: how many rows it deleted, for how long, and whether it ran out of them. */
  record Purge(long deleted, double seconds, boolean exhausted) {
    static Purge run(JdbcIdempotencyStore store, double seconds, long most, AtomicBoolean stop) {
      long began = System.nanoTime();
      long end = began + (long) (seconds * 1e9);
      long deleted = 0;
      boolean exhausted = false;
      while (System.nanoTime() < end && deleted < most && !stop.get()) {
        int n = store.purgeExpired(PURGE_BATCH);
        deleted += n;
        if (n < PURGE_BATCH) {
          exhausted = true;
          break;
        }
      }
      return new Purge(deleted, (System.nanoTime() - began) / 1e9, exhausted);
    }

    @Override
    public String toString() {
      if (deleted == 0) {
        return "-";
      }
      return String.format(
          Locale.ROOT,
          "%.0f (%,d in %.0f s%s)",
          deleted / seconds,
          deleted,
          seconds,
          exhausted ? ", none left" : "");
    }
  }
}
