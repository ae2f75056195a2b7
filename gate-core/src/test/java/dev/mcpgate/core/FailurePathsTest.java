package dev.mcpgate.core;

import static dev.mcpgate.core.Failures.failed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Every way an attempt can end, on the plain and the transactional path: what the caller gets, what
 * the row says afterwards, and which events the listeners are told. The transactional path runs in
 * {@link UnitOfWork}, a unit of work over the in-memory store whose writes take effect only when it
 * commits.
 */
class FailurePathsTest {
  private static final Duration LEASE = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final FlakyStore store = new FlakyStore(InMemoryIdempotencyStore.create(clock));
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final IdempotencyGate gate =
      IdempotencyGate.builder(store)
          .listener(events::add)
          .policy(
              GatePolicy.builder()
                  .lease(LEASE)
                  .leaseRenewal(Duration.ZERO)
                  .inFlightWait(Duration.ZERO)
                  .maxResultBytes(64)
                  .build())
          .build();

  private static final ResultMapper<String> MAPPER =
      new ResultMapper<>() {
        @Override
        public byte[] toBytes(String value) {
          return value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public String fromBytes(byte[] bytes) {
          return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public boolean isFailure(String value) {
          return value.startsWith("FAILED");
        }
      };

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  private List<GateEvent.Type> types() {
    return events.stream().map(GateEvent::type).toList();
  }

  private Optional<ClaimRecord> row(String key) {
    return store.find(call(key).id());
  }

  /** Lets the lease run out and has another attempt take the key over, from inside an action. */
  private void takenOverMeanwhile(String key) {
    clock.advance(LEASE.plusSeconds(1));
    assertThat(gate.claim(call(key)))
        .isInstanceOfSatisfying(
            ClaimOutcome.Acquired.class, a -> assertThat(a.attempt()).isEqualTo(2));
  }

  /** The in-memory store, with writes that can be made to fail as an unreachable store's do. */
  static final class FlakyStore extends ForwardingIdempotencyStore {
    final AtomicBoolean completeFails = new AtomicBoolean();
    final AtomicBoolean releaseFails = new AtomicBoolean();
    final AtomicBoolean findFails = new AtomicBoolean();

    FlakyStore(IdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      if (completeFails.get()) {
        throw new StoreUnavailableException("complete failed (test)", null);
      }
      return super.complete(id, token, result, retention);
    }

    @Override
    public boolean release(ClaimId id, LeaseToken token) {
      if (releaseFails.get()) {
        throw new StoreUnavailableException("release failed (test)", null);
      }
      return super.release(id, token);
    }

    @Override
    public Optional<ClaimRecord> find(ClaimId id) {
      if (findFails.get()) {
        throw new StoreUnavailableException("find failed (test)", null);
      }
      return super.find(id);
    }
  }

  /**
   * A unit of work over the store: its token-checked writes are checked when made and applied when
   * it commits; a rollback drops them. {@code commitFault} makes commit fail after applying them
   * (the acknowledgement lost) or instead of applying them (rolled back).
   */
  static class UnitOfWork implements TransactionScope<List<Runnable>> {
    enum Fault {
      NONE,
      AFTER_APPLYING,
      INSTEAD_OF_APPLYING
    }

    private final IdempotencyStore store;
    Fault commitFault = Fault.NONE;
    boolean rolledBack;
    boolean beginFails;

    UnitOfWork(IdempotencyStore store) {
      this.store = store;
    }

    @Override
    public List<Runnable> begin() {
      if (beginFails) {
        throw new StoreUnavailableException("no connection (test)", null);
      }
      return new ArrayList<>();
    }

    private boolean holds(ClaimId id, LeaseToken token) {
      return store
          .find(id)
          .filter(r -> r.token().equals(token) && r.state() != ClaimState.COMPLETED)
          .isPresent();
    }

    @Override
    public boolean complete(
        List<Runnable> writes,
        ClaimId id,
        LeaseToken token,
        StoredResult result,
        Duration retention) {
      if (result.body().length > 1000) {
        throw new ResultTooLargeException(
            "the store's item limit (test)", result.body().length, 1000);
      }
      boolean held = holds(id, token);
      if (held) {
        writes.add(() -> store.complete(id, token, result, retention));
      }
      return held;
    }

    @Override
    public boolean release(List<Runnable> writes, ClaimId id, LeaseToken token) {
      boolean held = holds(id, token);
      if (held) {
        writes.add(() -> store.release(id, token));
      }
      return held;
    }

    @Override
    public void commit(List<Runnable> writes) {
      if (commitFault == Fault.INSTEAD_OF_APPLYING) {
        throw new IllegalStateException("connection lost during commit (test)");
      }
      writes.forEach(Runnable::run);
      writes.clear();
      if (commitFault == Fault.AFTER_APPLYING) {
        throw new IllegalStateException("connection lost after commit (test)");
      }
    }

    @Override
    public void rollback(List<Runnable> writes) {
      rolledBack = true;
      writes.clear();
    }

    @Override
    public void close(List<Runnable> writes) {}
  }

  // ---------------------------------------------------------------- the plain path

  @Test
  void anActionThatThrowsReleasesTheClaimAndItsExceptionPropagates() {
    IllegalStateException declined = new IllegalStateException("declined");
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            ctx -> {
                              throw declined;
                            }),
                        FailureReason.ACTION_FAILED)
                    .orThrow())
        .isSameAs(declined);

    assertThat(row("k")).isEmpty();
    assertThat(types()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.RELEASED);
    assertThat(events.get(1).error()).isSameAs(declined);
  }

  @Test
  void aCheckedExceptionIsWrappedAndTheClaimReleased() {
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            ctx -> {
                              throw new IOException("disk full");
                            }),
                        FailureReason.ACTION_FAILED)
                    .orThrow())
        .isInstanceOf(ActionFailedException.class)
        .hasMessageContaining("refund_order")
        .hasCauseInstanceOf(IOException.class);
    assertThat(row("k")).isEmpty();
  }

  @Test
  void anOutcomeUnknownExceptionFencesTheKey() {
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            ctx -> {
                              throw new OutcomeUnknownException(
                                  "timed out waiting for the provider");
                            }),
                        FailureReason.OUTCOME_UNKNOWN)
                    .orThrow())
        .isInstanceOf(OutcomeUnknownException.class);

    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
    assertThat(types()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.MARKED_UNKNOWN);
  }

  @Test
  void anOutcomeUnknownAfterATakeoverMarksNothing() {
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            ctx -> {
                              takenOverMeanwhile("k");
                              throw new OutcomeUnknownException("timed out");
                            }),
                        FailureReason.ACTION_FAILED)
                    .orThrow())
        .isInstanceOf(OutcomeUnknownException.class);

    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(types()).endsWith(GateEvent.Type.LEASE_LOST);
  }

  @Test
  void aFailureResultReleasesTheClaim() {
    GateResult<String> r = gate.execute(call("k"), MAPPER, ctx -> "FAILED: declined");

    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.RELEASED));
    assertThat(row("k")).isEmpty();
    assertThat(types()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.RELEASED);
  }

  @Test
  void aFailureResultAfterATakeoverReleasesNothing() {
    GateResult<String> r =
        gate.execute(
            call("k"),
            MAPPER,
            ctx -> {
              takenOverMeanwhile("k");
              return "FAILED: declined";
            });

    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.LEASE_LOST));
    assertThat(row("k").orElseThrow().attempt()).isEqualTo(2);
    assertThat(types()).endsWith(GateEvent.Type.LEASE_LOST);
  }

  @Test
  void aResultAfterATakeoverIsNotStored() {
    GateResult<String> r =
        gate.execute(
            call("k"),
            MAPPER,
            ctx -> {
              takenOverMeanwhile("k");
              return "refund 1";
            });

    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.LEASE_LOST));
    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(types()).endsWith(GateEvent.Type.LEASE_LOST);
  }

  @Test
  void aResultThatCannotBeStoredFencesTheKeyAsUnknownAndSaysSo() {
    store.completeFails.set(true);
    GateResult<String> r = gate.execute(call("k"), MAPPER, ctx -> "refund 1");

    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> {
              assertThat(e.completion()).isEqualTo(GateResult.Completion.STORE_FAILED);
              assertThat(e.value()).isEqualTo("refund 1");
            });
    // the effect happened: the key is fenced as unknown, not left to a lease that runs out
    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
    assertThat(types())
        .containsExactly(
            GateEvent.Type.ACQUIRED, GateEvent.Type.STORE_FAILED, GateEvent.Type.MARKED_UNKNOWN);
  }

  @Test
  void aFailingActionWhoseReleaseFailsKeepsItsExceptionAndSaysTheKeyStaysClaimed() {
    store.releaseFails.set(true);
    IllegalStateException declined = new IllegalStateException("declined");
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            ctx -> {
                              throw declined;
                            }),
                        FailureReason.ACTION_FAILED)
                    .orThrow())
        .isSameAs(declined);

    assertThat(declined.getSuppressed())
        .singleElement()
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(types()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.STORE_FAILED);
  }

  @Test
  void aResultTooLargeFencesTheKeyAsNotStored() {
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(call("k"), MAPPER, ctx -> "x".repeat(100)),
                        FailureReason.RESULT_TOO_LARGE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class);

    ClaimRecord r = row("k").orElseThrow();
    assertThat(r.state()).isEqualTo(ClaimState.COMPLETED);
    assertThat(r.result().kind()).isEqualTo(StoredResult.Kind.NOT_STORED);
    assertThat(types()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.RESULT_NOT_STORED);
    assertThat(gate.execute(call("k"), MAPPER, ctx -> "again"))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            f -> assertThat(f.reason()).isEqualTo(RefusalReason.RESULT_NOT_STORED));
  }

  @Test
  void aResultTooLargeAfterATakeoverFencesNothing() {
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            ctx -> {
                              takenOverMeanwhile("k");
                              return "x".repeat(100);
                            }),
                        FailureReason.RESULT_TOO_LARGE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class);

    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(types()).endsWith(GateEvent.Type.LEASE_LOST);
  }

  // ---------------------------------------------------------------- the transactional path

  @Test
  void aTransactionalResultIsStoredWhenTheUnitCommits() {
    UnitOfWork unit = new UnitOfWork(store);
    GateResult<String> r = gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "refund 1");

    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.STORED));
    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.COMPLETED);
    assertThat(unit.rolledBack).isFalse();
  }

  @Test
  void aUnitThatCannotBeginReleasesTheClaimAndNothingRan() {
    UnitOfWork unit = new UnitOfWork(store);
    unit.beginFails = true;
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            unit,
                            (w, ctx) -> {
                              ran.set(true);
                              return "refund 1";
                            }),
                        FailureReason.STORE_UNAVAILABLE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("did not run");
    assertThat(ran).isFalse();
    assertThat(row("k")).isEmpty();
  }

  @Test
  void aCommitWhoseAcknowledgementIsLostIsReadBackAsCommitted() {
    UnitOfWork unit = new UnitOfWork(store);
    unit.commitFault = UnitOfWork.Fault.AFTER_APPLYING;

    GateResult<String> r = gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "refund 1");

    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.STORED));
    assertThat(gate.execute(call("k"), MAPPER, ctx -> "again"))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, p -> assertThat(p.value()).isEqualTo("refund 1"));
  }

  @Test
  void aCommitThatRolledBackIsReadBackAsSuchAndTheClaimReleased() {
    UnitOfWork unit = new UnitOfWork(store);
    unit.commitFault = UnitOfWork.Fault.INSTEAD_OF_APPLYING;

    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "refund 1"),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("safe to retry");
    assertThat(row("k")).isEmpty();
  }

  @Test
  void aReleaseWhoseCommitAcknowledgementIsLostIsReadBackAsReleased() {
    UnitOfWork unit = new UnitOfWork(store);
    unit.commitFault = UnitOfWork.Fault.AFTER_APPLYING;

    GateResult<String> r = gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "FAILED: no");

    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.RELEASED));
    assertThat(row("k")).isEmpty();
  }

  @Test
  void aFailedCommitOfTheNotStoredMarkerIsAnUnknownCommitOutcome() {
    UnitOfWork unit = new UnitOfWork(store);
    unit.commitFault = UnitOfWork.Fault.INSTEAD_OF_APPLYING;

    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "x".repeat(100)),
                        FailureReason.COMMIT_UNKNOWN)
                    .orThrow()) // over the 64-byte limit
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("is not known");
    assertThat(row("k").orElseThrow().state())
        .as("not released: a retry finds out")
        .isEqualTo(ClaimState.IN_PROGRESS);
  }

  @Test
  void aFailedCommitWhoseClaimCannotBeReadIsAnUnknownOutcomeAndKeepsTheKey() {
    UnitOfWork unit =
        new UnitOfWork(store) {
          @Override
          public void commit(List<Runnable> writes) {
            store.findFails.set(true); // the store is gone with the commit's answer
            store.releaseFails.set(true);
            throw new IllegalStateException("connection lost during commit (test)");
          }
        };

    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "refund 1"),
                        FailureReason.COMMIT_UNKNOWN)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("is not known")
        .hasMessageContaining("finds out");
    store.findFails.set(false);
    store.releaseFails.set(false);
    assertThat(row("k").orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(types()).endsWith(GateEvent.Type.STORE_FAILED);
  }

  @Test
  void aCommitThatFailedAfterATakeoverIsALostLease() {
    UnitOfWork unit =
        new UnitOfWork(store) {
          @Override
          public void commit(List<Runnable> writes) {
            takenOverMeanwhile("k"); // the row changes hands, then the commit fails
            throw new IllegalStateException("connection lost (test)");
          }
        };

    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "refund 1"),
                        FailureReason.LEASE_LOST)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class);
  }

  @Test
  void aTransactionalResultAfterATakeoverRollsBack() {
    UnitOfWork unit = new UnitOfWork(store);
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            unit,
                            (w, ctx) -> {
                              takenOverMeanwhile("k");
                              return "refund 1";
                            }),
                        FailureReason.LEASE_LOST)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("rolled back");
    assertThat(unit.rolledBack).isTrue();
  }

  @Test
  void aTransactionalFailureResultAfterATakeoverRollsBack() {
    UnitOfWork unit = new UnitOfWork(store);
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            unit,
                            (w, ctx) -> {
                              takenOverMeanwhile("k");
                              return "FAILED: declined";
                            }),
                        FailureReason.LEASE_LOST)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class);
    assertThat(unit.rolledBack).isTrue();
    assertThat(types()).endsWith(GateEvent.Type.LEASE_LOST);
  }

  @Test
  void aTransactionalResultTooLargeAfterATakeoverRollsBack() {
    UnitOfWork unit = new UnitOfWork(store);
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            unit,
                            (w, ctx) -> {
                              takenOverMeanwhile("k");
                              return "x".repeat(100);
                            }),
                        FailureReason.LEASE_LOST)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .satisfies(e -> assertThat(e.getCause()).isInstanceOf(ResultTooLargeException.class));
    assertThat(unit.rolledBack).isTrue();
  }

  @Test
  void aTransactionalActionThatThrowsRollsBackAndReleases() {
    UnitOfWork unit = new UnitOfWork(store);
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(
                            call("k"),
                            MAPPER,
                            unit,
                            (w, ctx) -> {
                              throw new IllegalStateException("declined");
                            }),
                        FailureReason.ACTION_FAILED)
                    .orThrow())
        .hasMessage("declined");
    assertThat(unit.rolledBack).isTrue();
    assertThat(row("k")).isEmpty();
  }

  @Test
  void aTransactionalResultThatCannotBeStoredRollsBackAndReleases() {
    UnitOfWork unit =
        new UnitOfWork(store) {
          @Override
          public boolean complete(
              List<Runnable> writes,
              ClaimId id,
              LeaseToken token,
              StoredResult result,
              Duration retention) {
            throw new IllegalStateException("the UPDATE failed (test)");
          }
        };
    assertThatThrownBy(
            () ->
                failed(
                        gate.execute(call("k"), MAPPER, unit, (w, ctx) -> "refund 1"),
                        FailureReason.ROLLED_BACK)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("rolled back");
    assertThat(unit.rolledBack).isTrue();
    assertThat(row("k")).isEmpty();
  }

  // ---------------------------------------------------------------- the step-by-step API

  @Test
  void eachStepSaysWhetherItsTokenStillHeldTheKeyAndTellsTheListeners() {
    ClaimOutcome.Acquired stale = (ClaimOutcome.Acquired) gate.claim(call("k"));
    takenOverMeanwhile("k");
    events.clear();

    assertThat(gate.extendLease(stale, LEASE)).isFalse();
    assertThat(gate.release(stale)).isFalse();
    assertThat(gate.markUnknown(stale)).isFalse();
    assertThat(gate.complete(stale, new byte[] {1}, false)).isFalse();
    assertThat(types()).containsOnly(GateEvent.Type.LEASE_LOST).hasSize(4);

    ClaimOutcome.Acquired live = (ClaimOutcome.Acquired) gate.claim(call("other"));
    events.clear();
    assertThat(gate.extendLease(live, LEASE)).isTrue();
    assertThat(gate.markUnknown(live)).isTrue();
    assertThat(gate.release(live)).isTrue();
    assertThat(types()).containsExactly(GateEvent.Type.MARKED_UNKNOWN, GateEvent.Type.RELEASED);
    assertThat(row("other")).isEmpty();
  }

  @Test
  void aContextWhoseManualExtensionIsRefusedReportsTheLeaseLost() {
    gate.execute(
        call("k"),
        MAPPER,
        ctx -> {
          assertThat(ctx.isLeaseLost()).isFalse();
          assertThat(ctx.extendLease(LEASE)).isTrue();
          assertThat(ctx.isLeaseLost()).isFalse();
          takenOverMeanwhile("k");
          assertThat(ctx.extendLease(LEASE)).isFalse();
          assertThat(ctx.isLeaseLost()).isTrue();
          assertThat(ctx.isTakeover()).isFalse();
          assertThat(ctx.id()).isEqualTo(call("k").id());
          assertThat(ctx.claim().attempt()).isEqualTo(1);
          return "done";
        });
  }

  @Test
  void aKeyHeldLongIsRefusedWithARetryAfterOfAtMostFiveSeconds() {
    IdempotencyGate longLease =
        gate.withPolicy(gate.policy().toBuilder().lease(Duration.ofSeconds(30)).build());
    longLease.claim(call("k"));
    clock.advance(Duration.ofSeconds(1));

    assertThat(longLease.execute(call("k"), MAPPER, ctx -> "x"))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> {
              assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS);
              assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(5));
            });
    clock.advance(Duration.ofSeconds(26));
    assertThat(longLease.execute(call("k"), MAPPER, ctx -> "x"))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(3)));
  }

  // ---------------------------------------------------------------- the claim

  @Test
  void aStoreThatReportsAClaimItsTokenDoesNotHoldIsRefusedAsBroken() {
    IdempotencyStore lying =
        new ForwardingIdempotencyStore(store) {
          @Override
          public dev.mcpgate.core.spi.ClaimAttempt claim(dev.mcpgate.core.spi.ClaimRequest r) {
            dev.mcpgate.core.spi.ClaimAttempt real = super.claim(r);
            ClaimRecord row = real.record();
            ClaimRecord other =
                new ClaimRecord(
                    row.id(),
                    row.argsHash(),
                    row.state(),
                    LeaseToken.random(),
                    row.attempt(),
                    row.createdAt(),
                    row.leaseExpiresAt(),
                    row.expiresAt(),
                    row.completedAt(),
                    row.result());
            return new dev.mcpgate.core.spi.ClaimAttempt.Acquired(other, real.storeNow());
          }
        };
    IdempotencyGate broken = IdempotencyGate.builder(lying).build();
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(
            () ->
                broken.execute(
                    call("k"),
                    MAPPER,
                    ctx -> {
                      ran.set(true);
                      return "x";
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not hold");
    assertThat(ran).isFalse();
  }

  @Test
  void aReplayIsToldToTheListenersWithTheAttemptThatRan() {
    gate.execute(call("k"), MAPPER, ctx -> "refund 1");
    events.clear();
    gate.execute(call("k"), MAPPER, ctx -> "again");

    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(GateEvent.Type.REPLAYED);
              assertThat(e.attempt()).isEqualTo(1);
            });
  }

  @Test
  void aWaitOnAHeldKeyEndsWhenTheThreadIsInterruptedAndKeepsTheInterrupt() throws Exception {
    IdempotencyGate waiting =
        gate.withPolicy(gate.policy().toBuilder().inFlightWait(Duration.ofSeconds(30)).build());
    waiting.claim(call("k"));
    java.util.concurrent.atomic.AtomicReference<GateResult<String>> result =
        new java.util.concurrent.atomic.AtomicReference<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread t =
        new Thread(
            () -> {
              result.set(waiting.execute(call("k"), MAPPER, ctx -> "x"));
              stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
    t.start();
    Thread.sleep(100);
    t.interrupt();
    t.join(5_000);

    assertThat(t.isAlive()).isFalse();
    assertThat(result.get())
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS));
    assertThat(stillInterrupted).isTrue();
  }

  @Test
  void aCallDecisionTellsItsKeySourceAndHowLongItWaited() throws Exception {
    java.util.concurrent.CountDownLatch secondClaim = new java.util.concurrent.CountDownLatch(2);
    IdempotencyGate waiting =
        IdempotencyGate.builder(
                new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
                  @Override
                  public dev.mcpgate.core.spi.ClaimAttempt claim(
                      dev.mcpgate.core.spi.ClaimRequest request) {
                    dev.mcpgate.core.spi.ClaimAttempt attempt = super.claim(request);
                    secondClaim.countDown();
                    return attempt;
                  }
                })
            .listener(events::add)
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(10)).build())
            .build();
    ClaimOutcome.Acquired first =
        (ClaimOutcome.Acquired) waiting.claim(call("k").withKeySource("meta"));
    Thread finisher =
        new Thread(
            () -> {
              try {
                // the second call found the key in flight and waits; it is done 120 ms later
                secondClaim.await();
                Thread.sleep(120);
              } catch (InterruptedException e) {
                return;
              }
              waiting.complete(
                  first, "refund 1".getBytes(java.nio.charset.StandardCharsets.UTF_8), false);
            });
    finisher.start();
    GateResult<String> replay =
        waiting.execute(call("k").withKeySource("argument"), MAPPER, ctx -> "again");
    finisher.join();

    assertThat(replay).isInstanceOf(GateResult.Replayed.class);
    GateEvent acquired =
        events.stream().filter(e -> e.type() == GateEvent.Type.ACQUIRED).findFirst().orElseThrow();
    GateEvent replayed =
        events.stream().filter(e -> e.type() == GateEvent.Type.REPLAYED).findFirst().orElseThrow();
    assertThat(acquired.keySource()).isEqualTo("meta");
    assertThat(acquired.waited()).isZero();
    assertThat(replayed.keySource()).isEqualTo("argument");
    assertThat(replayed.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    assertThat(call("k").keySource()).isNull();
  }
}
