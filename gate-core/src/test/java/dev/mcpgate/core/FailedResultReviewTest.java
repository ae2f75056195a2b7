package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Findings of an adversarial review of the change that made failures a case of the result: each
 * test failed on that change (ebd987f) and names what must hold.
 */
class FailedResultReviewTest {

  private static ToolCall call(String tool, String key) {
    return ToolCall.of("acme", tool, key, Map.of("order", "o-1"));
  }

  /** A single-commit unit over an in-memory store; a claim is undone by a rollback. */
  static final class Unit implements ClaimingScope<List<Runnable>> {
    final IdempotencyStore store;
    final AtomicBoolean claimFails = new AtomicBoolean();
    final AtomicBoolean commitFails = new AtomicBoolean();

    Unit(IdempotencyStore store) {
      this.store = store;
    }

    @Override
    public List<Runnable> begin() {
      return new ArrayList<>();
    }

    @Override
    public ClaimAttempt claim(List<Runnable> undo, ClaimRequest request, Duration wait) {
      if (claimFails.get()) {
        // what the SPI says a store throws, and what JdbcTransactionScope.claim throws
        // (SqlFailures)
        throw new StoreUnavailableException("connection reset during claim (test)", null);
      }
      ClaimAttempt a = store.claim(request);
      if (a instanceof ClaimAttempt.Acquired) {
        undo.add(() -> store.release(request.id(), request.token()));
      }
      return a;
    }

    @Override
    public boolean complete(
        List<Runnable> undo, ClaimId id, LeaseToken token, StoredResult r, Duration retention) {
      return store.complete(id, token, r, retention);
    }

    @Override
    public boolean release(List<Runnable> undo, ClaimId id, LeaseToken token) {
      return store.release(id, token);
    }

    @Override
    public void commit(List<Runnable> undo) {
      if (commitFails.get()) {
        throw new IllegalStateException("connection lost while committing (test)");
      }
      undo.clear();
    }

    @Override
    public void rollback(List<Runnable> undo) {
      undo.forEach(Runnable::run);
      undo.clear();
    }

    @Override
    public void close(List<Runnable> undo) {}
  }

  /**
   * F1. A single-commit claim the store cannot write (StoreUnavailableException, as the SPI and
   * JdbcTransactionScope throw) escapes executeSingleCommit as an exception instead of
   * Failed(STORE_UNAVAILABLE): SingleCommitRunner.once rethrows any IdempotencyException as it is.
   */
  @Test
  void singleCommitClaimThatTheStoreCannotWriteIsAFailedResultNotAnException() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    Unit unit = new Unit(store);
    unit.claimFails.set(true);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GateResult<String> r;
      try {
        r =
            gate.executeSingleCommit(
                call("refund_order", "k-sc"),
                ResultMapper.utf8(),
                unit,
                (undo, ctx) -> "refund " + runs.incrementAndGet());
      } catch (RuntimeException e) {
        throw new AssertionError("executeSingleCommit threw instead of returning Failed", e);
      }
      GateResult.Failed<?> f = Failures.failed(r, FailureReason.STORE_UNAVAILABLE);
      assertThat(f.effect()).isEqualTo(GateResult.Effect.NO);
      assertThat(f.retrySafe()).isTrue();
      assertThat(runs).hasValue(0);
    }
  }

  /**
   * F2. A nested gate through orThrow(): the inner call's commit outcome is unknown. Before the
   * change the inner execute threw CommitOutcomeUnknownException (an OutcomeUnknownException), so
   * the outer gate's default policy fenced the outer key as unknown. Now orThrow() throws a
   * GateOutcomeException, which no policy reads as unknown: the outer key is released and the outer
   * caller is told "nothing took effect, safe to retry" while the inner effect may have committed
   * (here it did).
   */
  @Test
  void anInnerCommitUnknownThroughOrThrowIsNotToldAsNoEffectByTheOuterGate() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    Unit unit = new Unit(store);
    unit.commitFails.set(true);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GateResult<String> outer =
          gate.execute(
              call("outer_tool", "k-outer"),
              ResultMapper.utf8(),
              ctx ->
                  gate.executeSingleCommit(
                          call("inner_tool", "k-inner"),
                          ResultMapper.utf8(),
                          unit,
                          (undo, ictx) -> "inner effect")
                      .orThrow());

      assertThat(outer).isInstanceOf(GateResult.Failed.class);
      GateResult.Failed<?> f = (GateResult.Failed<?>) outer;
      assertThat(f.effect())
          .as("the inner call may have committed (%s: %s)", f.reason(), f.message())
          .isNotEqualTo(GateResult.Effect.NO);
      assertThat(f.retrySafe() && f.reason() == FailureReason.ACTION_FAILED).isFalse();
      assertThat(store.find(new ClaimId("acme", "outer_tool", "k-outer")))
          .as("the outer key is fenced, as it was before the change")
          .hasValueSatisfying(row -> assertThat(row.state()).isEqualTo(ClaimState.UNKNOWN));
    }
  }

  /**
   * F3. Failed.attempt() is documented as "the attempt that ran, or 0 when none of this call did",
   * but every failure decided after the claim and before the action (renewal could not start, the
   * unit of work could not begin, the lease could not be confirmed) carries the claim's attempt.
   * The audit records it, where before it recorded no attempt (no handler ran).
   */
  @Test
  void aFailureBeforeTheActionRanSaysNoAttemptRan() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    AtomicInteger runs = new AtomicInteger();
    TransactionScope<Object> noConnection =
        new TransactionScope<>() {
          @Override
          public Object begin() {
            throw new StoreUnavailableException("no connection in the pool (test)", null);
          }

          @Override
          public boolean complete(
              Object r, ClaimId id, LeaseToken t, StoredResult s, Duration retention) {
            return store.complete(id, t, s, retention);
          }

          @Override
          public boolean release(Object r, ClaimId id, LeaseToken t) {
            return store.release(id, t);
          }

          @Override
          public void commit(Object r) {}

          @Override
          public void rollback(Object r) {}

          @Override
          public void close(Object r) {}
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GateResult.Failed<?> f =
          Failures.failed(
              gate.execute(
                  call("refund_order", "k-tx"),
                  ResultMapper.utf8(),
                  noConnection,
                  (r, ctx) -> "refund " + runs.incrementAndGet()),
              FailureReason.STORE_UNAVAILABLE);
      assertThat(runs).hasValue(0);
      assertThat(f.attempt()).as("no attempt of this call ran").isZero();
    }
  }

  /**
   * F4. A codec that cannot decode for a passing reason (its key service is down) is told
   * RESULT_UNREADABLE, retrySafe false ("fails the same way until the operator fixes"), which the
   * model reads as "do not retry, ask the operator". Before, the codec's exception went out as it
   * was. A store/key-service outage is safe to retry with the same key.
   */
  @Test
  void aCodecWhoseKeyServiceIsDownIsNotToldAsNeverReadable() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    AtomicBoolean kmsDown = new AtomicBoolean();
    ResultCodec kms =
        new ResultCodec() {
          @Override
          public byte[] encode(ClaimId id, byte[] plain) {
            return plain;
          }

          @Override
          public byte[] decode(ClaimId id, byte[] stored) {
            if (kmsDown.get()) {
              throw new StoreUnavailableException("key service timed out (test)", null);
            }
            return stored;
          }
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(store).codec(kms).build()) {
      gate.execute(call("refund_order", "k-kms"), ResultMapper.utf8(), ctx -> "refund");
      kmsDown.set(true);
      GateResult<String> r =
          gate.execute(call("refund_order", "k-kms"), ResultMapper.utf8(), ctx -> "again");
      assertThat(r).isInstanceOf(GateResult.Failed.class);
      assertThat(((GateResult.Failed<?>) r).retrySafe())
          .as("the key service was down, the stored result is fine: a retry may succeed")
          .isTrue();
    }
  }

  /**
   * F5. A failure after waiting on another attempt says it waited zero: GateEngine.execute only
   * copies claimed.waited() once claimWaiting returned, so a CallFailure thrown by a later round of
   * the wait (the store went away meanwhile) carries Duration.ZERO.
   */
  @Test
  void aStoreFailureAfterWaitingOnAnotherAttemptSaysHowLongItWaited() {
    AtomicInteger claims = new AtomicInteger();
    IdempotencyStore store =
        new dev.mcpgate.core.spi.ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            if (claims.incrementAndGet() > 3) {
              throw new IllegalStateException("connection refused (test)");
            }
            return super.claim(request);
          }
        };
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(2)).build())
            .build()) {
      ToolCall c = call("refund_order", "k-wait");
      assertThat(gate.claim(c)).isInstanceOf(ClaimOutcome.Acquired.class); // held, not renewed
      GateResult.Failed<?> f =
          Failures.failed(
              gate.execute(c, ResultMapper.utf8(), ctx -> "refund"),
              FailureReason.STORE_UNAVAILABLE);
      assertThat(claims.get()).isGreaterThan(3);
      assertThat(f.waited()).as("it waited on the holder before the store failed").isPositive();
    }
  }

  /**
   * F6 (step-by-step API). A codec that throws a plain RuntimeException on replay: IdempotencyGate
   * .claim used to throw the codec's exception as it was; it now throws a new IdempotencyException
   * (CallFailure.toException), a type change no test pins.
   */
  @Test
  void theStepByStepClaimStillThrowsTheCodecsOwnException() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    try (IdempotencyGate writer = IdempotencyGate.builder(store).build()) {
      writer.execute(call("refund_order", "k-step"), ResultMapper.utf8(), ctx -> "refund");
    }
    ResultCodec broken =
        new ResultCodec() {
          @Override
          public byte[] encode(ClaimId id, byte[] plain) {
            return plain;
          }

          @Override
          public byte[] decode(ClaimId id, byte[] stored) {
            throw new IllegalArgumentException("bad tag (test)");
          }
        };
    try (IdempotencyGate gate = IdempotencyGate.builder(store).codec(broken).build()) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> gate.claim(call("refund_order", "k-step")))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
