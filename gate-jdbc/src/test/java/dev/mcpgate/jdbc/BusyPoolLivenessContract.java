package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Liveness under a busy pool: a HikariCP pool of 10 shared by the store and the tools, the default
 * policy (5 s lease renewed every 1.25 s), 40 calls with distinct keys at once, each action taking
 * a pooled connection for a 3 s query, and each caller sending its call again after 2.5 s. The
 * tools hold the pool for about 12 s; renewals that waited for it would let the leases run out and
 * the retries take live actions over. With the store's own renewal connection, every key runs
 * exactly once, and of each call and its retry one executes and the other is told the truth: a
 * replay or an in-progress refusal.
 *
 * <p>{@code -Dmcpgate.test.renewViaPool=true} runs the same load with renewals one by one through
 * the pool (the old path), to see the double runs it allows; the test then reports them instead of
 * asserting.
 */
abstract class BusyPoolLivenessContract {
  static final int POOL = 10;
  static final int CALLS = 40;

  abstract TestDatabases.Target target();

  /**
   * @return a query that takes about 3 s
   */
  abstract String slowQuery();

  @Test
  void aBusyPoolNeverLetsARetryTakeALiveActionOver() throws Exception {
    boolean viaPool = Boolean.getBoolean("mcpgate.test.renewViaPool");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(target().url());
    if (target().user() != null) {
      config.setUsername(target().user());
      config.setPassword(target().password());
    }
    config.setMaximumPoolSize(POOL);
    config.setConnectionTimeout(30_000);
    config.setPoolName("mcpgate-busy");
    String tenant = "busy-" + UUID.randomUUID();
    ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<Future<GateResult<String>>> firsts = new ArrayList<>();
    List<Future<GateResult<String>>> retries = new ArrayList<>();
    ExecutorService callers = Executors.newFixedThreadPool(2 * CALLS);
    long started = System.nanoTime();
    try (HikariDataSource pool = new HikariDataSource(config);
        JdbcIdempotencyStore jdbc =
            JdbcIdempotencyStore.builder(pool)
                .tableName(JdbcStoreContract.TABLE)
                .createSchemaIfMissing(true)
                .build();
        IdempotencyGate gate =
            IdempotencyGate.builder(viaPool ? renewingViaPool(jdbc) : jdbc).build()) {
      jdbc.verify(); // the application's startup: the store's setup
      CountDownLatch go = new CountDownLatch(1);
      for (int i = 0; i < CALLS; i++) {
        String key = "k" + i;
        ToolCall call = ToolCall.of(tenant, "slow_tool", key, Map.of("key", key));
        firsts.add(
            callers.submit(
                () -> {
                  go.await();
                  return gate.execute(
                      call,
                      ResultMapper.utf8(),
                      ctx -> {
                        try (Connection c = pool.getConnection();
                            Statement st = c.createStatement()) {
                          st.execute(slowQuery());
                        }
                        return key
                            + "#"
                            + runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                      });
                }));
        retries.add(
            callers.submit(
                () -> {
                  go.await();
                  Thread.sleep(2_500);
                  return gate.execute(
                      call,
                      ResultMapper.utf8(),
                      ctx ->
                          key
                              + "#"
                              + runs.computeIfAbsent(key, k -> new AtomicInteger())
                                  .incrementAndGet());
                }));
      }
      go.countDown();
      List<String> firstAnswers = new ArrayList<>();
      List<String> retryAnswers = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        firstAnswers.add(describe(firsts.get(i).get(2, TimeUnit.MINUTES)));
        retryAnswers.add(describe(retries.get(i).get(2, TimeUnit.MINUTES)));
      }
      long tookMs = (System.nanoTime() - started) / 1_000_000;
      long doubleRuns = runs.values().stream().filter(n -> n.get() > 1).count();
      System.err.println(
          "[mcpgate tests] busy pool on "
              + jdbc.dialect()
              + (viaPool ? " (renewals via the pool)" : "")
              + ": "
              + doubleRuns
              + " keys run twice of "
              + CALLS
              + ", first calls "
              + tally(firstAnswers)
              + ", retries "
              + tally(retryAnswers)
              + ", "
              + tookMs
              + " ms");
      if (viaPool) {
        return;
      }
      assertThat(runs).hasSize(CALLS);
      runs.forEach((key, n) -> assertThat(n.get()).as("executions of %s", key).isEqualTo(1));
      for (int i = 0; i < CALLS; i++) {
        // the retry is told the truth of a live or finished first call: replayed or in
        // progress. (Under this load a first call may reach the store after its retry: then the
        // retry runs, and the first call is the one told.)
        List<String> pair = List.of(firstAnswers.get(i), retryAnswers.get(i));
        assertThat(pair)
            .as("answers to the call and its retry of k%d", i)
            .containsOnlyOnce("executed")
            .allSatisfy(a -> assertThat(a).isIn("executed", "replayed", "in progress"));
      }
    } finally {
      callers.shutdownNow();
    }
  }

  private static String describe(GateResult<String> r) {
    if (r instanceof GateResult.Replayed<String>) {
      return "replayed";
    }
    if (r instanceof GateResult.Refused<String> refused) {
      return refused.reason() == RefusalReason.IN_PROGRESS
          ? "in progress"
          : "refused " + refused.reason();
    }
    return r.getClass().getSimpleName().toLowerCase();
  }

  private static Map<String, Long> tally(List<String> answers) {
    Map<String, Long> counts = new java.util.TreeMap<>();
    answers.forEach(a -> counts.merge(a, 1L, Long::sum));
    return counts;
  }

  /** The old renewal path: each lease extended on its own pooled connection. */
  private static IdempotencyStore renewingViaPool(IdempotencyStore store) {
    return new ForwardingIdempotencyStore(store) {
      @Override
      public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
        Set<LeaseToken> extended = new HashSet<>();
        for (HeldLease held : leases) {
          if (extendLease(held.id(), held.token(), lease)) {
            extended.add(held.token());
          }
        }
        return ExtendedLeases.of(extended);
      }
    };
  }
}
