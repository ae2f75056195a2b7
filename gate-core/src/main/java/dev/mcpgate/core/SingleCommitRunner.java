package dev.mcpgate.core;

import static dev.mcpgate.core.AttemptRunner.rethrow;
import static dev.mcpgate.core.AttemptRunner.rollbackQuietly;

import dev.mcpgate.core.GateResult.Completion;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimingScope;
import java.time.Duration;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a call in single-commit mode: one transaction holds the claim, the action's writes and
 * the completion, and commits once. A duplicate that meets the uncommitted claim waits on the
 * database for it (at most the in-flight wait), then finds the committed row and replays it, or
 * finds none and runs. An action that throws rolls the whole transaction back, claim included:
 * the key is free at once.
 */
final class SingleCommitRunner {
  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyGate.class);

  private final IdempotencyGate gate;
  private final GatePolicy policy;
  private final Claimer claimer;
  private final ResultWriter writer;
  private final Events events;

  SingleCommitRunner(IdempotencyGate gate, GatePolicy policy, Claimer claimer,
      ResultWriter writer, Events events) {
    this.gate = gate;
    this.policy = policy;
    this.claimer = claimer;
    this.writer = writer;
    this.events = events;
  }

  /**
   * @param replay reads a replayed result back through the mapper
   */
  <T, R> GateResult<T> run(ToolCall call, String hash, ResultMapper<T> mapper,
      ClaimingScope<R> scope, ScopedAction<T, R> action,
      Function<ClaimOutcome.Replayed, GateResult<T>> replay) {
    ClaimId id = call.id();
    R resource;
    try {
      resource = scope.begin();
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not begin the transaction of " + id
          + "; the action did not run; safe to retry", e);
    }
    try {
      LeaseToken token = LeaseToken.random();
      ClaimAttempt attempt;
      try {
        attempt = scope.claim(resource, new ClaimRequest(id, hash, token, policy.lease(),
            policy.retention()), policy.inFlightWait());
      } catch (ClaimBusyException busy) {
        rollbackQuietly(scope, resource, busy);
        Duration retryAfter = busy.waited().isZero() ? Duration.ofSeconds(1) : busy.waited();
        return GateResult.Refused.of((ClaimOutcome.Refused) claimer.toldAfterWaiting(
            new ClaimOutcome.Refused(id, RefusalReason.IN_PROGRESS, retryAfter,
                "another transaction holds the same key and did not end within "
                    + busy.waited().toMillis() + " ms; retry after " + retryAfter.toMillis()
                    + " ms"), call, busy.waited()));
      } catch (IdempotencyException e) {
        rollbackQuietly(scope, resource, e);
        throw e;
      } catch (RuntimeException e) {
        rollbackQuietly(scope, resource, e);
        throw new StoreUnavailableException("could not claim " + id + " in its transaction;"
            + " the action did not run; safe to retry", e);
      }
      if (attempt instanceof ClaimAttempt.Existing existing) {
        rollbackQuietly(scope, resource, null);
        ClaimOutcome outcome = claimer.existing(call, hash, existing);
        return outcome instanceof ClaimOutcome.Replayed replayed ? replay.apply(replayed)
            : GateResult.Refused.of((ClaimOutcome.Refused) outcome);
      }
      ClaimOutcome.Acquired claim = claimer.acquired(attempt.record(), token, call);
      return runAcquired(claim, mapper, scope, resource, action);
    } finally {
      try {
        scope.close(resource);
      } catch (RuntimeException e) {
        LOG.warn("could not close the transaction of {}", id, e);
      }
    }
  }

  private <T, R> GateResult<T> runAcquired(ClaimOutcome.Acquired claim, ResultMapper<T> mapper,
      ClaimingScope<R> scope, R resource, ScopedAction<T, R> action) {
    ClaimId id = claim.id();
    T value;
    try {
      value = action.run(resource, new ClaimContext(gate, claim, LeaseKeeper.none(claim)));
    } catch (Throwable t) {
      rollbackQuietly(scope, resource, t);
      events.emit(GateEvent.Type.RELEASED, claim, "the action failed; its"
          + " transaction, the claim included, was rolled back: a retry runs again", t);
      throw rethrow(id, t);
    }
    boolean failure = mapper.isFailure(value);
    if (failure && policy.failureMode() == GatePolicy.FailureMode.RELEASE) {
      scope.release(resource, id, claim.token());
      commit(scope, resource, claim);
      events.emit(GateEvent.Type.RELEASED, claim,
          "failure result; claim released, a retry runs again", null);
      return new GateResult.Executed<>(id, value, claim, Completion.RELEASED);
    }
    if (!writer.store(scope, resource, claim, mapper.toBytes(value), failure)) {
      rollbackQuietly(scope, resource, null);
      throw new IllegalStateException("the uncommitted claim of " + id + " in this transaction"
          + " was not found by its completion: was the transaction ended by the action?");
    }
    commit(scope, resource, claim);
    return new GateResult.Executed<>(id, value, claim, Completion.STORED);
  }

  private <R> void commit(ClaimingScope<R> scope, R resource, ClaimOutcome.Acquired claim) {
    try {
      scope.commit(resource);
    } catch (RuntimeException e) {
      rollbackQuietly(scope, resource, e);
      throw new StoreUnavailableException("the commit of " + claim.id() + " failed: whether the"
          + " action's writes and its result were committed is not known; a retry with the same"
          + " key replays them if they were, and runs the action if they were not", e);
    }
  }
}
