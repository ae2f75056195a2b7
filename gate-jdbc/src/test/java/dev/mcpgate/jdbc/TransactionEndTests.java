package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateOutcomeException;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.store.tck.GateResults;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How a unit of work of the JDBC store ends: nothing a failure left open is ever committed (the
 * scope rolls back before it restores auto-commit), and a zero in-flight wait does not wait for
 * another transaction's uncommitted claim. Run on each database by {@link JdbcStoreContract}.
 */
interface TransactionEndTests {

  JdbcIdempotencyStore jdbcStore();

  Connection connection() throws SQLException;

  ToolCall toolCall(String key);

  List<String> businessRows() throws SQLException;

  void writeBusinessRow(Connection c, String note) throws SQLException;

  /** A mapper that cannot turn the action's value into bytes. */
  ResultMapper<String> UNMAPPABLE =
      new ResultMapper<>() {
        @Override
        public byte[] toBytes(String value) {
          throw new IllegalArgumentException("cannot map " + value);
        }

        @Override
        public String fromBytes(byte[] bytes) {
          throw new IllegalArgumentException("cannot map back");
        }
      };

  /** The key of {@code call} is free: no row, and a retry runs its action. */
  private void assertFreeAndRetryRuns(IdempotencyGate gate, ToolCall call) throws SQLException {
    assertThat(jdbcStore().find(call.id())).as("the row of %s", call.id()).isEmpty();
    GateResult<String> retry =
        gate.executeSingleCommit(
            call,
            ResultMapper.utf8(),
            jdbcStore().singleCommit(),
            (c, ctx) -> {
              writeBusinessRow(c, "retry");
              return "retried";
            });
    assertThat(retry).isInstanceOf(GateResult.Executed.class);
    assertThat(businessRows()).containsExactly("retry");
  }

  // ---------------------------------------------------------------- the scope on its own

  @Test
  default void aPooledUnitOfWorkClosedWithoutItsCommitCommitsNothing() throws Exception {
    ClaimingScope<Connection> scope = jdbcStore().singleCommit();
    ToolCall call = toolCall("give-back-pooled");
    Connection c = scope.begin();
    ClaimAttempt attempt =
        scope.claim(
            c,
            new ClaimRequest(
                call.id(), "h", LeaseToken.random(), Duration.ofMinutes(1), Duration.ofMinutes(10)),
            Duration.ZERO);
    assertThat(attempt).isInstanceOf(ClaimAttempt.Acquired.class);
    writeBusinessRow(c, "open");
    scope.close(c); // neither commit nor rollback: what a path that skipped both does

    assertThat(businessRows()).isEmpty();
    assertThat(jdbcStore().find(call.id())).isEmpty();
  }

  @Test
  default void theCallersUnitOfWorkClosedWithoutItsCommitCommitsNothing() throws Exception {
    ToolCall call = toolCall("give-back-callers");
    try (Connection mine = connection()) {
      ClaimingScope<Connection> scope = jdbcStore().singleCommit(mine);
      Connection c = scope.begin();
      scope.claim(
          c,
          new ClaimRequest(
              call.id(), "h", LeaseToken.random(), Duration.ofMinutes(1), Duration.ofMinutes(10)),
          Duration.ZERO);
      writeBusinessRow(c, "open");
      scope.close(c);
      assertThat(mine.getAutoCommit()).isTrue();
      assertThat(mine.isClosed()).isFalse();
    }
    assertThat(businessRows()).isEmpty();
    assertThat(jdbcStore().find(call.id())).isEmpty();
  }

  // ---------------------------------------------------------------- through the gate

  @Test
  default void aSingleCommitCompletionThatFindsNoClaimRowCommitsNothing() throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(jdbcStore()).build();
    ToolCall call = toolCall("claim-row-gone");

    // the action removes its own uncommitted claim: the completion (sent with the COMMIT where
    // the dialect can) finds no row, and the COMMIT must not be carried out
    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.executeSingleCommit(
                            call,
                            ResultMapper.utf8(),
                            jdbcStore().singleCommit(),
                            (c, ctx) -> {
                              writeBusinessRow(c, "effect");
                              try (var ps =
                                  c.prepareStatement(
                                      "DELETE FROM "
                                          + jdbcStore().tableName()
                                          + " WHERE tenant = ? AND tool = ? AND idem_key = ?")) {
                                ClaimRows.bindKey(ps, 1, call.id());
                                ps.executeUpdate();
                              }
                              return "done";
                            }),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("none of its writes took effect");
    assertThat(businessRows()).as("nothing committed").isEmpty();
    assertFreeAndRetryRuns(gate, call);
  }

  @Test
  default void singleCommitWithAMapperThatThrowsCommitsNeitherTheEffectNorTheClaim()
      throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(jdbcStore()).build();
    ToolCall call = toolCall("mapper-throws");

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.executeSingleCommit(
                            call,
                            UNMAPPABLE,
                            jdbcStore().singleCommit(),
                            (c, ctx) -> {
                              writeBusinessRow(c, "effect");
                              return "value";
                            }),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .hasStackTraceContaining("cannot map value");

    assertThat(businessRows()).isEmpty();
    assertFreeAndRetryRuns(gate, call);
  }

  @Test
  default void singleCommitWithAnActionThatThrowsAnErrorCommitsNeitherTheEffectNorTheClaim()
      throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(jdbcStore()).build();
    ToolCall call = toolCall("action-error");

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.executeSingleCommit(
                            call,
                            ResultMapper.utf8(),
                            jdbcStore().singleCommit(),
                            (c, ctx) -> {
                              writeBusinessRow(c, "effect");
                              throw new AssertionError("the action broke");
                            }),
                        FailureReason.ACTION_FAILED)
                    .orThrow())
        .hasStackTraceContaining("the action broke");

    assertThat(businessRows()).isEmpty();
    assertFreeAndRetryRuns(gate, call);
  }

  @Test
  default void transactionalWithAMapperThatThrowsCommitsNoEffectAndNoCompletion() throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(jdbcStore()).build();
    ToolCall call = toolCall("tx-mapper-throws");

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.execute(
                            call,
                            UNMAPPABLE,
                            jdbcStore().transactions(),
                            (c, ctx) -> {
                              writeBusinessRow(c, "effect");
                              return "value";
                            }),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .hasStackTraceContaining("cannot map value");

    assertThat(businessRows()).isEmpty();
    // free, or fenced as unknown: never COMPLETED with its effect missing
    jdbcStore()
        .find(call.id())
        .ifPresent(row -> assertThat(row.state()).isNotEqualTo(ClaimState.COMPLETED));
  }

  /** A codec whose key service is down: it cannot encode a result. */
  dev.mcpgate.core.ResultCodec KMS_DOWN =
      new dev.mcpgate.core.ResultCodec() {
        @Override
        public byte[] encode(dev.mcpgate.core.ClaimId id, byte[] plain) {
          throw new IllegalStateException("the key service is down (test)");
        }

        @Override
        public byte[] decode(dev.mcpgate.core.ClaimId id, byte[] stored) {
          return stored;
        }
      };

  @Test
  default void singleCommitWithACodecThatThrowsCommitsNeitherTheEffectNorTheClaim()
      throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(jdbcStore()).codec(KMS_DOWN).build();
    ToolCall call = toolCall("codec-throws");

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.executeSingleCommit(
                            call,
                            ResultMapper.utf8(),
                            jdbcStore().singleCommit(),
                            (c, ctx) -> {
                              writeBusinessRow(c, "effect");
                              return "value";
                            }),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .hasStackTraceContaining("the key service is down");

    assertThat(businessRows()).isEmpty();
    assertFreeAndRetryRuns(IdempotencyGate.builder(jdbcStore()).build(), call);
  }

  @Test
  default void transactionalWithACodecThatThrowsCommitsNoEffectAndFreesTheKey() throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(jdbcStore()).codec(KMS_DOWN).build();
    ToolCall call = toolCall("tx-codec-throws");

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        gate.execute(
                            call,
                            ResultMapper.utf8(),
                            jdbcStore().transactions(),
                            (c, ctx) -> {
                              writeBusinessRow(c, "effect");
                              return "value";
                            }),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("nothing took effect");

    assertThat(businessRows()).isEmpty();
    assertThat(jdbcStore().find(call.id())).as("released").isEmpty();
  }

  /**
   * The action swallows a failed statement of its own. On PostgreSQL that aborts the transaction,
   * so the completion statement fails; elsewhere the transaction goes on and completes. Either way
   * the effect and the completed claim commit together or not at all.
   */
  @Test
  default void aCompletionThatFailsAfterTheActionCommitsNeitherHalf() throws Exception {
    for (boolean singleCommit : new boolean[] {false, true}) {
      IdempotencyGate gate = IdempotencyGate.builder(jdbcStore()).build();
      ToolCall call = toolCall("completion-fails-" + singleCommit);
      dev.mcpgate.core.ScopedAction<String, Connection> action =
          (c, ctx) -> {
            writeBusinessRow(c, "effect-" + singleCommit);
            try (java.sql.Statement st = c.createStatement()) {
              st.execute("SELECT * FROM no_such_table_mcpgate");
            } catch (SQLException swallowed) {
              // the tool's own mistake, caught and ignored
            }
            return "value";
          };
      try {
        if (singleCommit) {
          gate.executeSingleCommit(call, ResultMapper.utf8(), jdbcStore().singleCommit(), action);
        } else {
          gate.execute(call, ResultMapper.utf8(), jdbcStore().transactions(), action);
        }
      } catch (RuntimeException failed) {
        // the completion failed: what matters is what was committed
      }
      boolean effect = businessRows().contains("effect-" + singleCommit);
      boolean completed =
          jdbcStore().find(call.id()).filter(r -> r.state() == ClaimState.COMPLETED).isPresent();
      assertThat(effect)
          .as(
              "single-commit %s: the effect committed exactly when the claim" + " completed",
              singleCommit)
          .isEqualTo(completed);
    }
  }

  // ---------------------------------------------------------------- zero in-flight wait

  /**
   * The session's own lock wait: PostgreSQL lock_timeout, MariaDB/MySQL innodb_lock_wait_timeout.
   */
  private String lockWait(Connection c) throws SQLException {
    return SqlDialect.queryOne(
        c,
        switch (jdbcStore().dialect()) {
          case POSTGRESQL -> "SELECT current_setting('lock_timeout')";
          case H2 -> "SELECT LOCK_TIMEOUT()";
          case MARIADB, MYSQL -> "SELECT @@SESSION.innodb_lock_wait_timeout";
        });
  }

  @Test
  default void aZeroWaitClaimLeavesTheSessionsLockWaitAsItWasOnEveryPath() throws Exception {
    JdbcDialect dialect = jdbcStore().dialect();
    String mine =
        switch (dialect) {
          case POSTGRESQL -> "7s";
          case H2 -> "7000";
          case MARIADB, MYSQL -> "7";
        };
    ToolCall fresh = toolCall("lock-wait-fresh");
    ToolCall replay = toolCall("lock-wait-replay");
    ToolCall takeover = toolCall("lock-wait-takeover");
    jdbcStore()
        .complete(
            replay.id(),
            ((ClaimAttempt.Acquired)
                    jdbcStore()
                        .claim(
                            new ClaimRequest(
                                replay.id(),
                                "h",
                                LeaseToken.random(),
                                Duration.ofMinutes(1),
                                Duration.ofMinutes(10))))
                .record()
                .token(),
            new dev.mcpgate.core.spi.StoredResult(
                dev.mcpgate.core.spi.StoredResult.Kind.VALUE, new byte[] {1}),
            Duration.ofMinutes(10));
    jdbcStore()
        .claim(
            new ClaimRequest(
                takeover.id(),
                "h",
                LeaseToken.random(),
                Duration.ofMillis(1),
                Duration.ofMinutes(10)));
    Thread.sleep(50);
    try (Connection c = connection()) {
      SqlDialect.run(
          c,
          switch (dialect) {
            case POSTGRESQL -> "SET lock_timeout = '" + mine + "'";
            case H2 -> "SET LOCK_TIMEOUT " + mine;
            case MARIADB, MYSQL -> "SET SESSION innodb_lock_wait_timeout = " + mine;
          });
      ClaimingScope<Connection> scope = jdbcStore().singleCommit(c);
      for (ToolCall call : List.of(fresh, replay, takeover)) {
        Connection tx = scope.begin();
        ClaimAttempt attempt =
            scope.claim(
                tx,
                new ClaimRequest(
                    call.id(),
                    "h",
                    LeaseToken.random(),
                    Duration.ofMinutes(1),
                    Duration.ofMinutes(10)),
                Duration.ZERO);
        assertThat(attempt)
            .as(call.id().key())
            .isInstanceOf(
                call == replay ? ClaimAttempt.Existing.class : ClaimAttempt.Acquired.class);
        assertThat(lockWait(tx))
            .as("inside the transaction, after %s", call.id().key())
            .isEqualTo(mine);
        scope.rollback(tx);
        scope.close(tx);
        assertThat(lockWait(c)).as("after %s", call.id().key()).isEqualTo(mine);
      }
    }
  }

  @Test
  default void aZeroInFlightWaitIsRefusedWhileAnotherTransactionHoldsTheClaim() throws Exception {
    IdempotencyGate gate =
        IdempotencyGate.builder(jdbcStore())
            .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
            .build();
    ToolCall call = toolCall("zero-wait");
    CountDownLatch acting = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> first =
        CompletableFuture.supplyAsync(
            () ->
                gate.executeSingleCommit(
                    call,
                    ResultMapper.utf8(),
                    jdbcStore().singleCommit(),
                    (c, ctx) -> {
                      writeBusinessRow(c, "first");
                      acting.countDown();
                      finish.await(60, TimeUnit.SECONDS);
                      return "first done";
                    }));
    try {
      assertThat(acting.await(30, TimeUnit.SECONDS)).isTrue();

      long started = System.nanoTime();
      GateResult<String> duplicate =
          gate.executeSingleCommit(
              call, ResultMapper.utf8(), jdbcStore().singleCommit(), (c, ctx) -> "must not run");
      long tookMs = (System.nanoTime() - started) / 1_000_000;
      boolean firstStillHeld = !first.isDone() && finish.getCount() == 1;
      System.err.println(
          "[mcpgate tests] "
              + jdbcStore().dialect()
              + ": zero-wait duplicate refused in "
              + tookMs
              + " ms");

      assertThat(duplicate)
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS));
      assertThat(firstStillHeld).as("the first call still held its uncommitted claim").isTrue();
    } finally {
      finish.countDown();
    }
    assertThat(first.get(60, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
    assertThat(businessRows()).containsExactly("first");
  }
}
