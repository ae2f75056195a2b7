package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Review of 99f23e8..b378774 on PostgreSQL and MariaDB, through the gate: the operator's settlement
 * (a claim replacing the token read, {@code SqlDialect.replace}: a plain SELECT, then the takeover
 * UPDATE conditional on that token) against a holder or a retry that acts between the operator's
 * read and its claim. These check suspicions that held: they pass.
 */
class SettlementReplacingReviewTest {

  private static final String TABLE = "review_settle_replacing";

  static Stream<Arguments> databases() {
    return Stream.of(
        Arguments.of("postgres", (Supplier<TestDatabases.Target>) TestDatabases::postgres),
        Arguments.of("mariadb", (Supplier<TestDatabases.Target>) TestDatabases::mariadb));
  }

  private interface Body {
    void run(IdempotencyGate gate, HookedStore store, ToolCall call) throws Exception;
  }

  /** The JDBC store with a hook run before the next claim. */
  private static final class HookedStore extends ForwardingIdempotencyStore {
    final AtomicReference<Runnable> beforeNextClaim = new AtomicReference<>();

    HookedStore(JdbcIdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public ClaimAttempt claim(ClaimRequest request) {
      Runnable hook = beforeNextClaim.getAndSet(null);
      if (hook != null) {
        hook.run();
      }
      return super.claim(request);
    }
  }

  private static void withGate(String name, Supplier<TestDatabases.Target> db, Body body)
      throws Exception {
    // the pool is cached by name and shared by the tests (TestDatabases.pool): not closed here
    HikariDataSource pool = TestDatabases.pool(db.get(), "review-replacing-" + name, 4);
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + TABLE);
    }
    JdbcIdempotencyStore jdbc =
        JdbcIdempotencyStore.builder(pool).tableName(TABLE).createSchemaIfMissing(true).build();
    jdbc.verify();
    HookedStore store = new HookedStore(jdbc);
    GatePolicy policy =
        GatePolicy.builder().lease(Duration.ofSeconds(1)).leaseRenewal(Duration.ZERO).build();
    ToolCall call =
        ToolCall.of(
            "acme", "refund_order", "k-" + UUID.randomUUID(), Map.of("order_id", "ord_9f2"));
    try (IdempotencyGate gate = IdempotencyGate.builder(store).policy(policy).build()) {
      body.run(gate, store, call);
    } finally {
      jdbc.close();
    }
  }

  /**
   * The holder releases between the read and the claim: the replacing claim finds no row and writes
   * none (PostgreSQL's ordinary read would insert a free key; the replace path must not).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aRowReleasedSinceTheReadIsNotRecreated(String name, Supplier<TestDatabases.Target> db)
      throws Exception {
    withGate(
        name,
        db,
        (gate, store, call) -> {
          ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(call);
          Thread.sleep(1_300);
          store.beforeNextClaim.set(() -> assertThat(gate.release(holder)).isTrue());

          boolean settled =
              gate.resolveUnknown(
                  call.id(),
                  Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8)));

          assertThat(settled).isFalse();
          assertThat(gate.find(call.id())).isEmpty();
        });
  }

  /**
   * The holder renews between the read and the claim (a renewal keeps the token): the replacing
   * claim's UPDATE is timed by the SELECT's clock, so the renewed lease is not taken.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aHolderThatRenewedSinceTheReadKeepsItsKey(String name, Supplier<TestDatabases.Target> db)
      throws Exception {
    withGate(
        name,
        db,
        (gate, store, call) -> {
          ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(call);
          Thread.sleep(1_300);
          store.beforeNextClaim.set(
              () -> assertThat(gate.extendLease(holder, Duration.ofSeconds(30))).isTrue());

          boolean settled = gate.resolveUnknown(call.id(), Reconciler.Verdict.notHappened());

          assertThat(settled).isFalse();
          ClaimRecord row = gate.find(call.id()).orElseThrow();
          assertThat(row.token()).isEqualTo(holder.token());
          assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
        });
  }

  /**
   * The holder releases, a retry claims afresh under a short lease and lapses, all between the read
   * and the claim: the retry's row (same attempt number 1, lease run out) is not taken.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aRowClaimedAfreshAndLapsedSinceTheReadIsLeftAlone(
      String name, Supplier<TestDatabases.Target> db) throws Exception {
    withGate(
        name,
        db,
        (gate, store, call) -> {
          ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(call);
          Thread.sleep(1_300);
          AtomicReference<ClaimOutcome.Acquired> retry = new AtomicReference<>();
          store.beforeNextClaim.set(
              () -> {
                assertThat(gate.release(holder)).isTrue();
                retry.set((ClaimOutcome.Acquired) gate.claim(call));
                try {
                  Thread.sleep(1_300);
                } catch (InterruptedException e) {
                  throw new AssertionError(e);
                }
              });

          boolean settled = gate.resolveUnknown(call.id(), Reconciler.Verdict.notHappened());

          assertThat(settled).isFalse();
          ClaimRecord row = gate.find(call.id()).orElseThrow();
          assertThat(row.token()).isEqualTo(retry.get().token());
          assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
        });
  }

  /** Nothing between: the settlement takes over attempt 1, fences and completes it. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void aDeadHoldersRowIsSettled(String name, Supplier<TestDatabases.Target> db) throws Exception {
    withGate(
        name,
        db,
        (gate, store, call) -> {
          gate.claim(call);
          Thread.sleep(1_300);

          boolean settled =
              gate.resolveUnknown(
                  call.id(),
                  Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8)));

          assertThat(settled).isTrue();
          ClaimRecord row = gate.find(call.id()).orElseThrow();
          assertThat(row.state()).isEqualTo(ClaimState.COMPLETED);
          assertThat(row.attempt()).isEqualTo(2);
        });
  }
}
