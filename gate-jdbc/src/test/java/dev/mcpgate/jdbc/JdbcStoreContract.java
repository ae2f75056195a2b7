package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateOutcomeException;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingTransactionScope;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TransactionScope;
import dev.mcpgate.store.tck.GateResults;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import dev.mcpgate.store.tck.chaos.PromiseUnderFaults;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The store contract plus what only a SQL store promises: round trips, transactions that commit
 * with their completion, schema handling. One subclass per database.
 */
abstract class JdbcStoreContract extends IdempotencyStoreContract
    implements TransactionEndTests, RenewalPathTests {
  static final String TABLE = "mcpgate_claims_test";
  static final String EFFECTS = "mcpgate_test_effects";

  /** Stores a test built besides {@link #store}: each keeps a renewal connection until closed. */
  private final List<JdbcIdempotencyStore> extraStores = new ArrayList<>();

  /**
   * @return the store, closed after the test
   */
  JdbcIdempotencyStore closedAfterTest(JdbcIdempotencyStore s) {
    extraStores.add(s);
    return s;
  }

  @Override
  protected void closeStore() throws Exception {
    extraStores.forEach(JdbcIdempotencyStore::close);
    extraStores.clear();
    if (store instanceof JdbcIdempotencyStore jdbc) {
      jdbc.close();
    }
  }

  /**
   * @return a pooled data source on the database under test
   */
  abstract HikariDataSource dataSource();

  @Override
  public abstract TestDatabases.Target target();

  @Override
  public JdbcIdempotencyStore jdbcStore() {
    return (JdbcIdempotencyStore) store;
  }

  @Override
  public Connection connection() throws SQLException {
    return dataSource().getConnection();
  }

  @Override
  public ToolCall toolCall(String key) {
    return call(key, Map.of("key", key));
  }

  @Override
  public List<String> businessRows() throws SQLException {
    return effects();
  }

  @Override
  public void writeBusinessRow(Connection c, String note) throws SQLException {
    insertEffect(c, note);
  }

  @Override
  public String tenantOfTest() {
    return tenant;
  }

  @Override
  public JdbcIdempotencyStore storeOn(DataSource data, DataSource renewals) {
    JdbcIdempotencyStore.Builder b =
        storeBuilder(data != null ? data : dataSource()).tableName(TABLE);
    if (renewals != null) {
      b.renewalConnections(renewals);
    }
    return closedAfterTest(b.build());
  }

  /**
   * @param data the store's data source
   * @return a builder of a store on {@code data}, as every store of the contract is built; a
   *     subclass pins a dialect here
   */
  JdbcIdempotencyStore.Builder storeBuilder(DataSource data) {
    return JdbcIdempotencyStore.builder(data);
  }

  /**
   * @return statements for a fresh call (claim + complete) and a replay, on this dialect
   */
  abstract int[] expectedStatementsFreshAndReplay();

  @Override
  protected IdempotencyStore createStore() throws Exception {
    JdbcIdempotencyStore s =
        storeBuilder(dataSource()).tableName(TABLE).createSchemaIfMissing(true).build();
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + EFFECTS
              + " (tenant VARCHAR(255) NOT NULL,"
              + " note VARCHAR(255) NOT NULL)");
    }
    return s;
  }

  @Override
  protected int threadsOnOneKey() {
    return 64;
  }

  @Override
  protected int[] threadsAndKeys() {
    return new int[] {16, 1000};
  }

  List<String> effects() throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT note FROM " + EFFECTS + " WHERE tenant = ? ORDER BY note")) {
      ps.setString(1, tenant);
      List<String> notes = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          notes.add(rs.getString(1));
        }
      }
      return notes;
    }
  }

  void insertEffect(Connection c, String note) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + EFFECTS + " (tenant, note) VALUES (?, ?)")) {
      ps.setString(1, tenant);
      ps.setString(2, note);
      ps.executeUpdate();
    }
  }

  // ------------------------------------------------------------------ round trips

  @Test
  void freshCallAndReplayCostTheDocumentedStatements() {
    CountingDataSource counting = new CountingDataSource(dataSource());
    JdbcIdempotencyStore counted =
        closedAfterTest(storeBuilder(counting.dataSource()).tableName(TABLE).build());
    IdempotencyGate gate = IdempotencyGate.builder(counted).build();
    ToolCall call = call("rt", Map.of("order_id", "ord_9f2"));
    counted.verify(); // the store's one-time setup (dialect, table) is not a claim's cost

    counting.reset();
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-1");
    int fresh = counting.executed();
    counting.reset();
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-2");
    int replay = counting.executed();

    assertThat(new int[] {fresh, replay}).containsExactly(expectedStatementsFreshAndReplay());
  }

  @Test
  void takeoverCostsAtMostThreeStatements() throws Exception {
    CountingDataSource counting = new CountingDataSource(dataSource());
    JdbcIdempotencyStore counted =
        closedAfterTest(storeBuilder(counting.dataSource()).tableName(TABLE).build());
    ToolCall call = call("rt-takeover", Map.of("order_id", "ord_9f2"));
    IdempotencyGate.builder(counted)
        .policy(GatePolicy.builder().lease(shortLease()).build())
        .build()
        .claim(call);
    elapse(shortLease());
    IdempotencyGate gate = IdempotencyGate.builder(counted).build();

    counting.reset();
    GateResult<String> result =
        gate.execute(call, ResultMapper.utf8(), ctx -> "takeover=" + ctx.isTakeover());

    assertThat(((GateResult.Executed<String>) result).value()).isEqualTo("takeover=true");
    assertThat(counting.executed()).as("read, conditional UPDATE, complete").isEqualTo(3);
  }

  // ------------------------------------------------------------------ exactly once in one database

  @Test
  void actionWritesAndCompletionCommitTogether() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate = IdempotencyGate.builder(jdbc).build();
    ToolCall call = call("tx", Map.of("session_id", "s1"));

    GateResult<String> first =
        gate.execute(
            call,
            ResultMapper.utf8(),
            jdbc.transactions(),
            (c, ctx) -> {
              insertEffect(c, "stopped");
              return "stopped s1";
            });
    GateResult<String> again =
        gate.execute(
            call,
            ResultMapper.utf8(),
            jdbc.transactions(),
            (c, ctx) -> {
              insertEffect(c, "stopped again");
              return "stopped s1 again";
            });

    assertThat(((GateResult.Executed<String>) first).completion())
        .isEqualTo(GateResult.Completion.STORED);
    assertThat(again)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("stopped s1"));
    assertThat(effects()).containsExactly("stopped");
  }

  @Test
  void failingTransactionalActionLeavesNoWritesAndFreesTheKey() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate = IdempotencyGate.builder(jdbc).build();
    ToolCall call = call("tx-fail", Map.of());

    assertThatThrownBy(
            () ->
                gate.execute(
                        call,
                        ResultMapper.utf8(),
                        jdbc.transactions(),
                        (c, ctx) -> {
                          insertEffect(c, "half");
                          throw new IllegalStateException("validation failed");
                        })
                    .orThrow())
        .hasMessage("validation failed");

    assertThat(effects()).isEmpty();
    assertThat(store.find(call.id())).isEmpty();
  }

  @Test
  void takeoverDuringTheActionRollsBackTheStaleAttempt() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate =
        IdempotencyGate.builder(jdbc)
            .policy(
                GatePolicy.builder()
                    .lease(shortLease())
                    .inFlightWait(Duration.ZERO)
                    .leaseRenewal(Duration.ZERO)
                    .build()) // the stale attempt's renewals stopped
            .build();
    ToolCall call = call("tx-takeover", Map.of("session_id", "s1"));
    CountDownLatch staleWrote = new CountDownLatch(1);
    CountDownLatch winnerDone = new CountDownLatch(1);

    CompletableFuture<GateResult<String>> stale =
        CompletableFuture.supplyAsync(
            () ->
                gate.execute(
                    call,
                    ResultMapper.utf8(),
                    jdbc.transactions(),
                    (c, ctx) -> {
                      insertEffect(c, "stale");
                      staleWrote.countDown();
                      winnerDone.await(30, TimeUnit.SECONDS);
                      return "stale result";
                    }));
    assertThat(staleWrote.await(30, TimeUnit.SECONDS)).isTrue();
    elapse(shortLease());
    GateResult<String> winner =
        gate.execute(
            call,
            ResultMapper.utf8(),
            jdbc.transactions(),
            (c, ctx) -> {
              insertEffect(c, "winner");
              return "winner result, takeover=" + ctx.isTakeover();
            });
    winnerDone.countDown();

    assertThat(((GateResult.Executed<String>) winner).value())
        .isEqualTo("winner result, takeover=true");
    GateResults.failed(stale.get(30, TimeUnit.SECONDS), FailureReason.LEASE_LOST);
    assertThat(effects()).containsExactly("winner");
    assertThat(store.find(call.id()).orElseThrow().state()).isEqualTo(ClaimState.COMPLETED);
  }

  @Test
  void anInsertThatLosesTheRaceForAKeyReportsItSoTheClaimGoesRound() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    SqlDialect sql = jdbc.dialect().sql(JdbcStoreContract.TABLE, false); // the two-statement claim
    dev.mcpgate.core.spi.ClaimRequest first =
        new dev.mcpgate.core.spi.ClaimRequest(
            call("raced", Map.of()).id(), "v1:a", LeaseToken.random(), LONG, LONG);
    dev.mcpgate.core.spi.ClaimRequest second =
        new dev.mcpgate.core.spi.ClaimRequest(first.id(), "v1:a", LeaseToken.random(), LONG, LONG);
    try (Connection c = dataSource().getConnection()) {
      long now = store.now().toEpochMilli();
      if (!(sql instanceof PostgresSql)) { // PostgreSQL claims in one statement, no insert race
        assertThat(sql.insert(c, first, now, 5)).isTrue();
        assertThat(sql.insert(c, second, now, 5)).as("the key is taken").isFalse();
        assertThat(store.find(first.id()).orElseThrow().token()).isEqualTo(first.token());
      }
    }
  }

  @Test
  void aClaimThatMeetsAnUncommittedClaimOfItsKeyAnswersWithTheRowOnceItIsCommitted()
      throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    dev.mcpgate.core.spi.ClaimRequest first =
        new dev.mcpgate.core.spi.ClaimRequest(
            call("uncommitted", Map.of()).id(), "v1:a", LeaseToken.random(), LONG, LONG);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection holder = dataSource().getConnection()) {
      holder.setAutoCommit(false);
      // the key inserted in a transaction that is still open: a racing claim's insert meets it
      assertThat(jdbc.setup().sql().claimInTransaction(holder, first, 5))
          .isInstanceOf(dev.mcpgate.core.spi.ClaimAttempt.Acquired.class);
      CompletableFuture<dev.mcpgate.core.spi.ClaimAttempt> second =
          CompletableFuture.supplyAsync(
              () ->
                  store.claim(
                      new dev.mcpgate.core.spi.ClaimRequest(
                          first.id(), "v1:a", LeaseToken.random(), LONG, LONG)),
              pool);
      Thread.sleep(300);
      holder.commit();
      holder.setAutoCommit(true);
      dev.mcpgate.core.spi.ClaimAttempt attempt = second.get(30, TimeUnit.SECONDS);
      assertThat(attempt)
          .as("a claim that lost the race reads again and finds the committed row")
          .isInstanceOf(dev.mcpgate.core.spi.ClaimAttempt.Existing.class);
      assertThat(attempt.record().token()).isEqualTo(first.token());
    } finally {
      pool.shutdownNow();
    }
  }

  /** The store's transaction scope, with a commit that goes wrong in a given way. */
  private TransactionScope<Connection> commitThat(Consumer<Connection> commit) {
    return new ForwardingTransactionScope<>(((JdbcIdempotencyStore) store).transactions()) {
      @Override
      public void commit(Connection c) {
        commit.accept(c);
      }
    };
  }

  @Test
  void aCommitThatFailsAfterCommittingIsReportedAsExecutedAndStored() throws Exception {
    TransactionScope<Connection> real = ((JdbcIdempotencyStore) store).transactions();
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    ToolCall call = call("commit-lost-ack", Map.of("session_id", "s1"));

    GateResult<String> result =
        gate.execute(
            call,
            ResultMapper.utf8(),
            commitThat(
                c -> {
                  real.commit(c);
                  throw new IllegalStateException(
                      "FATAL 57P01: terminating connection (after COMMIT)");
                }),
            (c, ctx) -> {
              insertEffect(c, "stopped");
              return "stopped s1";
            });

    assertThat(result)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.STORED));
    assertThat(effects()).containsExactly("stopped");
    assertThat(gate.execute(call, ResultMapper.utf8(), ctx -> "again"))
        .isInstanceOf(GateResult.Replayed.class);
  }

  @Test
  void aCommitThatFailsAndRollsBackIsReportedAsNothingTookEffect() throws Exception {
    TransactionScope<Connection> real = ((JdbcIdempotencyStore) store).transactions();
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    ToolCall call = call("commit-rolled-back", Map.of("session_id", "s1"));

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.execute(
                            call,
                            ResultMapper.utf8(),
                            commitThat(
                                c -> {
                                  real.rollback(c);
                                  throw new IllegalStateException(
                                      "serialization failure at COMMIT");
                                }),
                            (c, ctx) -> {
                              insertEffect(c, "half");
                              return "stopped s1";
                            }),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("rolled back")
        .hasMessageContaining("safe to retry");

    assertThat(effects()).isEmpty();
    assertThat(store.find(call.id())).as("the claim was released").isEmpty();
  }

  @Test
  void aTransactionalFailureResultWhoseLeaseWasLostRollsBack() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    lostLeaseRollsBack(
        jdbc,
        GatePolicy.builder()
            .lease(shortLease())
            .inFlightWait(Duration.ZERO)
            .leaseRenewal(Duration.ZERO)
            .build(),
        "FAILED: card declined");
  }

  @Test
  void aTransactionalResultTooLargeWhoseLeaseWasLostRollsBack() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    lostLeaseRollsBack(
        jdbc,
        GatePolicy.builder()
            .lease(shortLease())
            .inFlightWait(Duration.ZERO)
            .leaseRenewal(Duration.ZERO)
            .maxResultBytes(64)
            .build(),
        "x".repeat(1000));
  }

  /**
   * A stale attempt whose lease is taken over mid-action ends with {@code staleResult}. The policy
   * renews nothing: the stale attempt stands for one whose renewals stopped (a paused or
   * partitioned process).
   */
  private void lostLeaseRollsBack(JdbcIdempotencyStore jdbc, GatePolicy policy, String staleResult)
      throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(jdbc).policy(policy).build();
    ResultMapper<String> mapper =
        new ResultMapper<>() {
          public byte[] toBytes(String v) {
            return v.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          }

          public String fromBytes(byte[] b) {
            return new String(b, java.nio.charset.StandardCharsets.UTF_8);
          }

          public boolean isFailure(String v) {
            return v.startsWith("FAILED");
          }
        };
    ToolCall call = call("lost-" + staleResult.length(), Map.of("session_id", "s1"));
    CountDownLatch staleWrote = new CountDownLatch(1);
    CountDownLatch winnerDone = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> stale =
        CompletableFuture.supplyAsync(
            () ->
                gate.execute(
                    call,
                    mapper,
                    jdbc.transactions(),
                    (c, ctx) -> {
                      insertEffect(c, "stale");
                      staleWrote.countDown();
                      winnerDone.await(30, TimeUnit.SECONDS);
                      return staleResult;
                    }));
    assertThat(staleWrote.await(30, TimeUnit.SECONDS)).isTrue();
    elapse(shortLease());
    GateResult<String> winner =
        IdempotencyGate.builder(jdbc)
            .policy(GatePolicy.builder().lease(LONG).build())
            .build()
            .execute(
                call,
                mapper,
                jdbc.transactions(),
                (c, ctx) -> {
                  insertEffect(c, "winner");
                  return "winner";
                });
    winnerDone.countDown();

    assertThat(winner).isInstanceOf(GateResult.Executed.class);
    GateResults.failed(stale.get(30, TimeUnit.SECONDS), FailureReason.LEASE_LOST);
    assertThat(effects()).as("the stale attempt's write never committed").containsExactly("winner");
    assertThat(store.find(call.id()).orElseThrow().result().body())
        .isEqualTo("winner".getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  // ------------------------------------------------------------------ single-commit mode

  @Test
  void singleCommitRacersWriteOneBusinessRowAndReplayItsResult() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate =
        IdempotencyGate.builder(jdbc)
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(60)).build())
            .build();
    int threads = threadsOnOneKey();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<GateResult<String>>> calls = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int i = 0; i < threads; i++) {
        calls.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    start.await();
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return gate.executeSingleCommit(
                      call("one-commit", Map.of("session_id", "s1")),
                      ResultMapper.utf8(),
                      jdbc.singleCommit(),
                      (c, ctx) -> {
                        int n = runs.incrementAndGet();
                        insertEffect(c, "stopped " + n);
                        Thread.sleep(50);
                        return "stopped s1, run " + n;
                      });
                },
                pool));
      }
      start.countDown();
      int executed = 0;
      int replayed = 0;
      for (CompletableFuture<GateResult<String>> f : calls) {
        GateResult<String> r = f.get(120, TimeUnit.SECONDS);
        if (r instanceof GateResult.Executed<String> e) {
          executed++;
          assertThat(e.value()).isEqualTo("stopped s1, run 1");
        } else if (r instanceof GateResult.Replayed<String> rp) {
          replayed++;
          assertThat(rp.value()).isEqualTo("stopped s1, run 1");
        } else {
          throw new AssertionError("unexpected " + r);
        }
      }
      assertThat(runs).hasValue(1);
      assertThat(executed).isEqualTo(1);
      assertThat(replayed).isEqualTo(threads - 1);
      assertThat(effects()).containsExactly("stopped 1");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void singleCommitActionThatThrowsLeavesNeitherItsWritesNorTheClaim() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate = IdempotencyGate.builder(jdbc).build();
    ToolCall call = call("one-commit-fail", Map.of());

    assertThatThrownBy(
            () ->
                gate.executeSingleCommit(
                        call,
                        ResultMapper.utf8(),
                        jdbc.singleCommit(),
                        (c, ctx) -> {
                          insertEffect(c, "half");
                          throw new IllegalStateException("validation failed");
                        })
                    .orThrow())
        .hasMessage("validation failed");
    assertThat(effects()).isEmpty();
    assertThat(store.find(call.id())).isEmpty();

    GateResult<String> retry =
        gate.executeSingleCommit(
            call,
            ResultMapper.utf8(),
            jdbc.singleCommit(),
            (c, ctx) -> {
              insertEffect(c, "whole");
              return "done";
            });
    assertThat(retry).isInstanceOf(GateResult.Executed.class);
    assertThat(effects()).containsExactly("whole");
  }

  @Test
  void singleCommitDuplicateThatWaitsPastTheInFlightWaitIsRefusedInProgress() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate =
        IdempotencyGate.builder(jdbc)
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(1)).build())
            .build();
    ToolCall call = call("one-commit-slow", Map.of("session_id", "s2"));
    CountDownLatch acting = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> first =
        CompletableFuture.supplyAsync(
            () ->
                gate.executeSingleCommit(
                    call,
                    ResultMapper.utf8(),
                    jdbc.singleCommit(),
                    (c, ctx) -> {
                      insertEffect(c, "slow");
                      acting.countDown();
                      finish.await(60, TimeUnit.SECONDS);
                      return "slow done";
                    }));
    assertThat(acting.await(30, TimeUnit.SECONDS)).isTrue();

    GateResult<String> duplicate =
        gate.executeSingleCommit(
            call, ResultMapper.utf8(), jdbc.singleCommit(), (c, ctx) -> "must not run");
    finish.countDown();

    assertThat(duplicate)
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> {
              assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS);
              assertThat(r.retryAfter()).isPositive();
            });
    assertThat(duplicate.waited()).isPositive();
    assertThat(first.get(60, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
    assertThat(duplicate.argsHash()).isEqualTo(first.get().argsHash()).startsWith("v1:");
    assertThat(
            gate.executeSingleCommit(
                call, ResultMapper.utf8(), jdbc.singleCommit(), (c, ctx) -> "must not run either"))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("slow done"));
    assertThat(effects()).containsExactly("slow");
  }

  @Test
  void singleCommitResultsCarryTheHashTheAttemptAndTheKeySource() {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate = IdempotencyGate.builder(jdbc).build();
    ToolCall call = call("one-commit-facts", Map.of("n", 1)).withKeySource("meta");
    String hash = ArgumentHasher.hash(call.arguments(), gate.policy().ignoredArguments());

    GateResult<String> executed =
        gate.executeSingleCommit(call, ResultMapper.utf8(), jdbc.singleCommit(), (c, x) -> "a");
    GateResult<String> replayed =
        gate.executeSingleCommit(call, ResultMapper.utf8(), jdbc.singleCommit(), (c, x) -> "b");
    ToolCall other = call("one-commit-facts", Map.of("n", 2)).withKeySource("meta");
    GateResult<String> conflict =
        gate.executeSingleCommit(other, ResultMapper.utf8(), jdbc.singleCommit(), (c, x) -> "c");

    assertThat(executed).isInstanceOf(GateResult.Executed.class);
    assertThat(replayed).isInstanceOf(GateResult.Replayed.class);
    assertThat(conflict).isInstanceOf(GateResult.Refused.class);
    assertThat(List.of(executed, replayed))
        .allSatisfy(
            r -> {
              assertThat(r.argsHash()).isEqualTo(hash);
              assertThat(r.attempt()).isEqualTo(1);
              assertThat(r.keySource()).isEqualTo("meta");
              assertThat(r.waited()).isZero();
            });
    assertThat(conflict.argsHash())
        .isEqualTo(ArgumentHasher.hash(other.arguments(), gate.policy().ignoredArguments()))
        .isNotEqualTo(hash);
    assertThat(conflict.attempt()).isZero();
  }

  @Test
  void singleCommitOnTheCallersConnectionLeavesItOpenInAutoCommit() throws Exception {
    JdbcIdempotencyStore jdbc = (JdbcIdempotencyStore) store;
    IdempotencyGate gate = IdempotencyGate.builder(jdbc).build();
    try (Connection mine = dataSource().getConnection()) {
      GateResult<String> r =
          gate.executeSingleCommit(
              call("own-conn", Map.of()),
              ResultMapper.utf8(),
              jdbc.singleCommit(mine),
              (c, ctx) -> {
                assertThat(c).isSameAs(mine);
                insertEffect(c, "mine");
                return "ok";
              });
      assertThat(r).isInstanceOf(GateResult.Executed.class);
      assertThat(mine.isClosed()).isFalse();
      assertThat(mine.getAutoCommit()).isTrue();
    }
    assertThat(effects()).containsExactly("mine");
  }

  // ------------------------------------------------------------------ schema

  @Test
  void missingTableIsAnErrorThatNamesTheTableAndTheDdl() {
    assertThatThrownBy(
            () -> storeBuilder(dataSource()).tableName("mcpgate_no_such_table").build().verify())
        .isInstanceOf(IdempotencyException.class)
        .hasMessageContaining("mcpgate_no_such_table")
        .hasMessageContaining("CREATE TABLE IF NOT EXISTS mcpgate_no_such_table");
  }

  @Test
  void aStoreBuildsWhileItsDatabaseIsDownFailsClosedAndWorksOnceItIsBack() throws Exception {
    AtomicBoolean down = new AtomicBoolean(true);
    DataSource real = dataSource();
    DataSource flaky =
        (DataSource)
            Proxy.newProxyInstance(
                DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getConnection") && down.get()) {
                    throw new SQLException("Connection refused", "08001");
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    JdbcIdempotencyStore s = closedAfterTest(storeBuilder(flaky).tableName(TABLE).build());
    IdempotencyGate gate = IdempotencyGate.builder(s).build();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.execute(
                            call("down", Map.of()),
                            ResultMapper.utf8(),
                            ctx -> "ran " + runs.incrementAndGet()),
                        FailureReason.STORE_UNAVAILABLE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("did not run");
    assertThatThrownBy(s::verify)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("Connection refused");
    assertThat(runs).hasValue(0);

    down.set(false);
    s.verify();
    assertThat(
            gate.execute(
                call("down", Map.of()),
                ResultMapper.utf8(),
                ctx -> "ran " + runs.incrementAndGet()))
        .isInstanceOf(GateResult.Executed.class);
    assertThat(runs).hasValue(1);
  }

  @Test
  void tableNameMustBeAPlainIdentifier() {
    for (String bad : List.of("claims; DROP TABLE x", "1claims", "cl aims", "a.b.c", "", "\"q\"")) {
      assertThatThrownBy(() -> storeBuilder(dataSource()).tableName(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("identifier");
    }
  }

  @Test
  void droppedTableFailsClosedNamingTheDdl() throws Exception {
    String table = "mcpgate_dropped_" + Math.abs(tenant.hashCode());
    JdbcIdempotencyStore s =
        closedAfterTest(
            storeBuilder(dataSource()).tableName(table).createSchemaIfMissing(true).build());
    s.verify(); // creates the table
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE " + table);
    }
    AtomicInteger runs = new AtomicInteger();
    IdempotencyGate gate = IdempotencyGate.builder(s).build();

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.execute(
                            call("k", Map.of()),
                            ResultMapper.utf8(),
                            ctx -> "x" + runs.incrementAndGet()),
                        FailureReason.STORE_UNAVAILABLE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining(table)
        .hasMessageContaining("CREATE TABLE");
    assertThat(runs).hasValue(0);
  }

  @Test
  void aTableWhoseNameSharesItsFirst50CharactersWithAnothersKeepsItsClaimsInItsOwnTable()
      throws Exception {
    // two tables whose names differ only after the 50th character: each store must claim in its
    // own table, whatever names its procedures (or indexes) are given
    String prefix = "mcpgate_claims_long_name_shared_prefix_0123456789ab";
    assertThat(prefix).hasSize(51);
    String one = prefix + "_one";
    String two = prefix + "_two";
    List<String> tables = List.of(one, two);
    dropTablesAndProcedures(tables);
    try {
      assertTheSecondTableKeepsItsClaim(one, two, "long-table");
      try (Connection c = dataSource().getConnection()) {
        for (String table : tables) {
          assertThat(indexedColumns(c, table))
              .as("table %s has its own purge index", table)
              .contains("created_at_ms");
        }
      }
    } finally {
      dropTablesAndProcedures(tables);
    }
  }

  /**
   * Builds a store on each table (with its schema and procedures), claims a key in the second one's
   * single-commit mode (through its procedure on MariaDB/MySQL), and asserts that the claim is in
   * the second table and not in the first.
   */
  void assertTheSecondTableKeepsItsClaim(String one, String two, String key) throws Exception {
    JdbcIdempotencyStore first =
        closedAfterTest(
            storeBuilder(dataSource()).tableName(one).createSchemaIfMissing(true).build());
    first.verify();
    JdbcIdempotencyStore second =
        closedAfterTest(
            storeBuilder(dataSource()).tableName(two).createSchemaIfMissing(true).build());
    second.verify();
    dev.mcpgate.core.spi.ClaimRequest request =
        new dev.mcpgate.core.spi.ClaimRequest(
            call(key, Map.of()).id(), "v1:a", LeaseToken.random(), LONG, LONG);

    assertThat(claimedInSingleCommit(second, request))
        .isInstanceOf(dev.mcpgate.core.spi.ClaimAttempt.Acquired.class);

    assertThat(second.find(request.id())).as("the claim is in table %s", two).isPresent();
    assertThat(first.find(request.id())).as("nothing is in table %s", one).isEmpty();
  }

  /**
   * Claims in single-commit mode with a zero wait (on MariaDB/MySQL, through the table's claim
   * procedure) and commits.
   */
  static dev.mcpgate.core.spi.ClaimAttempt claimedInSingleCommit(
      JdbcIdempotencyStore store, dev.mcpgate.core.spi.ClaimRequest request) {
    dev.mcpgate.core.spi.ClaimingScope<Connection> scope = store.singleCommit();
    Connection c = scope.begin();
    try {
      dev.mcpgate.core.spi.ClaimAttempt attempt = scope.claim(c, request, Duration.ZERO);
      scope.commit(c);
      return attempt;
    } finally {
      scope.close(c);
    }
  }

  /**
   * @return the lower-cased names of the columns that an index of {@code table} starts with
   */
  static List<String> indexedColumns(Connection c, String table) throws SQLException {
    String name =
        c.getMetaData().storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
    List<String> columns = new ArrayList<>();
    try (ResultSet rs = c.getMetaData().getIndexInfo(c.getCatalog(), null, name, false, false)) {
      while (rs.next()) {
        if (rs.getShort("ORDINAL_POSITION") == 1 && rs.getString("COLUMN_NAME") != null) {
          columns.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
        }
      }
    }
    return columns;
  }

  /** Drops the tables, and on MariaDB/MySQL the procedures the store would give them. */
  void dropTablesAndProcedures(List<String> tables) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      for (String t : tables) {
        st.execute("DROP TABLE IF EXISTS " + t);
        if (jdbcStore().dialect() == JdbcDialect.MARIADB
            || jdbcStore().dialect() == JdbcDialect.MYSQL) {
          st.execute("DROP PROCEDURE IF EXISTS " + TableName.claimProcedureName(t));
          st.execute("DROP PROCEDURE IF EXISTS " + TableName.completeProcedureName(t));
        }
      }
    }
  }

  @Test
  void lowLevelClaimOfACompletedCallIsAReplayInOneRead() {
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    ToolCall call = call("low", Map.of("a", 1));
    ClaimOutcome.Acquired fresh = (ClaimOutcome.Acquired) gate.claim(call);
    assertThat(gate.complete(fresh, "r".getBytes(), false)).isTrue();

    assertThat(gate.claim(call)).isInstanceOf(ClaimOutcome.Replayed.class);
  }

  /** The engine's promise on this store under the simulation's faults, in real time. */
  @Test
  void keepsThePromiseUnderFaults() {
    assertThat(PromiseUnderFaults.check(store, System.nanoTime())).isGreaterThan(50);
  }
}
