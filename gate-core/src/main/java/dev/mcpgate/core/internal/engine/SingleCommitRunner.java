package dev.mcpgate.core.internal.engine;

import static dev.mcpgate.core.internal.engine.AttemptRunner.rollbackQuietly;

import dev.mcpgate.core.ClaimBusyException;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.CommitOutcomeUnknownException;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.GateResult.Completion;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ScopedAction;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimingScope;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a call in single-commit mode: one transaction holds the claim, the action's writes and the
 * completion, and commits once. A duplicate that meets the uncommitted claim does not wait on the
 * database: it rolls back, gives its connection back, sleeps a growing back-off and claims again
 * (for at most the in-flight wait; zero refuses at once), then finds the committed row and replays
 * it, or finds none and runs. No connection is held while it sleeps. An action that throws rolls
 * the whole transaction back, claim included: the key is free at once. The policy is the calling
 * gate's, passed with each call.
 */
final class SingleCommitRunner {
  private static final Logger LOG = LoggerFactory.getLogger(Events.LOGGER);

  private final ClaimSteps steps;
  private final Claimer claimer;
  private final ResultWriter writer;
  private final Events events;
  private final CallsInFlight calls;
  private final Ticker ticker;

  SingleCommitRunner(
      ClaimSteps steps,
      Claimer claimer,
      ResultWriter writer,
      Events events,
      Ticker ticker,
      CallsInFlight calls) {
    this.calls = calls;
    this.ticker = ticker;
    this.steps = steps;
    this.claimer = claimer;
    this.writer = writer;
    this.events = events;
  }

  /**
   * @param replay reads a replayed result back through the mapper
   */
  <T, R> GateResult<T> run(
      GatePolicy policy,
      ToolCall call,
      String hash,
      ResultMapper<T> mapper,
      ClaimingScope<R> scope,
      ScopedAction<T, R> action,
      Function<ClaimOutcome.Replayed, GateResult<T>> replay) {
    long start = ticker.nanoTime();
    long deadline = start + policy.inFlightWait().toNanos();
    long backoffMs = Claimer.FIRST_BACKOFF_MS;
    int reconciliations = 0;
    while (true) {
      Round<T> round = once(policy, call, hash, mapper, scope, action, replay, reconciliations);
      if (round.result() != null) {
        return round.result();
      }
      if (round.claimAgain()) {
        reconciliations++;
        continue;
      }
      // another transaction holds the key uncommitted: wait for it, holding no connection
      long sleepMs =
          Claimer.sleepMs(
              backoffMs, deadline - ticker.nanoTime(), Duration.ofMillis(Claimer.MAX_BACKOFF_MS));
      Duration waited = Duration.ofNanos(ticker.nanoTime() - start);
      if (sleepMs == 0) {
        return busy(call, hash, waited);
      }
      if (calls.isDraining()) { // a closing gate starts no action: waiting on is for nothing
        throw CallFailure.gateClosed(
            "the gate is closing; the action did not run; safe to retry", null);
      }
      try {
        ticker.sleep(TimeUnit.MILLISECONDS.toNanos(sleepMs));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return busy(call, hash, waited);
      }
      backoffMs = Claimer.nextBackoffMs(backoffMs);
    }
  }

  /**
   * What one transaction came to: a result, or (result null) busy, or claim again after the
   * reconciler settled an unknown row.
   */
  private record Round<T>(GateResult<T> result, boolean claimAgain) {}

  private <T> GateResult<T> busy(ToolCall call, String hash, Duration waited) {
    ClaimId id = call.id();
    Duration retryAfter = Duration.ofMillis(Claimer.MAX_BACKOFF_MS);
    return GateResult.Refused.of(
        (ClaimOutcome.Refused)
            claimer.toldAfterWaiting(
                new ClaimOutcome.Refused(
                    id,
                    RefusalReason.IN_PROGRESS,
                    retryAfter,
                    "another transaction holds the same key and did not end within "
                        + waited.toMillis()
                        + " ms; retry after "
                        + retryAfter.toMillis()
                        + " ms"),
                call,
                waited),
        hash,
        call.keySource(),
        waited);
  }

  private <T, R> Round<T> once(
      GatePolicy policy,
      ToolCall call,
      String hash,
      ResultMapper<T> mapper,
      ClaimingScope<R> scope,
      ScopedAction<T, R> action,
      Function<ClaimOutcome.Replayed, GateResult<T>> replay,
      int reconciliations) {
    ClaimId id = call.id();
    R resource;
    try {
      resource = scope.begin();
    } catch (RuntimeException e) {
      throw CallFailure.unclaimed(
          "could not begin the transaction of " + id + "; the action did not run; safe to retry",
          e);
    }
    boolean closed = false;
    try {
      LeaseToken token = LeaseToken.random();
      ClaimRequest request = new ClaimRequest(id, hash, token, policy.lease(), policy.retention());
      ClaimAttempt attempt;
      try {
        attempt = scope.claim(resource, request, Duration.ZERO);
      } catch (ClaimBusyException busy) {
        rollbackQuietly(scope, resource, busy);
        return new Round<>(null, false);
      } catch (RuntimeException e) {
        rollbackQuietly(scope, resource, e);
        throw CallFailure.notClaimed(id, e);
      }
      try {
        ClaimIdentity.checked(request, attempt, () -> {}); // the rollback below undoes it
      } catch (CallFailure otherKey) {
        rollbackQuietly(scope, resource, otherKey);
        throw otherKey;
      }
      if (attempt instanceof ClaimAttempt.Existing existing) {
        rollbackQuietly(scope, resource, null);
        // closed before the reconciler and the store's own writes run: they may need a
        // connection of the same pool, and must not wait on the one this call holds
        closed = true;
        close(scope, resource, id);
        ClaimOutcome outcome = claimer.existing(policy, call, hash, existing, reconciliations);
        if (outcome == Claimer.CLAIM_AGAIN) {
          return new Round<>(null, true);
        }
        // the decision events of one transaction's claim are told without a wait: zero here too
        return new Round<>(
            outcome.<GateResult<T>>fold(
                acquired -> {
                  throw new IllegalStateException(
                      "a row that was there already was read as acquired: " + acquired.id());
                },
                replay::apply,
                refused -> GateResult.Refused.of(refused, hash, call.keySource(), Duration.ZERO)),
            false);
      }
      ClaimOutcome.Acquired claim = claimer.acquired(attempt.record(), token);
      return new Round<>(
          Results.decided(
              runAcquired(policy, claim, call.keySource(), mapper, scope, resource, action),
              hash,
              call.keySource(),
              Duration.ZERO),
          false);
    } finally {
      if (!closed) {
        close(scope, resource, id);
      }
    }
  }

  private static <R> void close(ClaimingScope<R> scope, R resource, ClaimId id) {
    try {
      scope.close(resource);
    } catch (RuntimeException e) {
      LOG.warn("could not close the transaction of {}", id, e);
    }
  }

  private <T, R> GateResult.Executed<T> runAcquired(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      String keySource,
      ResultMapper<T> mapper,
      ClaimingScope<R> scope,
      R resource,
      ScopedAction<T, R> action) {
    ClaimId id = claim.id();
    if (calls.isDraining()) {
      rollbackQuietly(scope, resource, null);
      events.emit(
          GateEvent.Type.RELEASED,
          claim,
          "the action did not start: the gate is closing; its transaction, the claim included, was"
              + " rolled back",
          null);
      throw CallFailure.gateClosed(
          "the gate is closing: the action of " + id + " did not run; safe to retry", null);
    }
    events.acquired(claim, keySource, Duration.ZERO); // one transaction's claim does not wait
    T value;
    try {
      value = action.run(resource, AttemptLease.context(steps, claim, Renewal.none(claim)));
    } catch (Throwable t) {
      rollbackQuietly(scope, resource, t);
      events.emit(
          GateEvent.Type.RELEASED,
          claim,
          "the action failed; its"
              + " transaction, the claim included, was rolled back: a retry runs again",
          t);
      // the whole transaction rolled back, claim included: nothing is fenced, the key is free
      throw AttemptRunner.failed(policy, claim, false, t);
    }
    try {
      boolean failure = mapper.isFailure(value);
      if (failure && policy.failureMode() == GatePolicy.FailureMode.RELEASE) {
        scope.release(resource, id, claim.token());
        commit(scope, resource, claim);
        events.emit(
            GateEvent.Type.RELEASED,
            claim,
            "failure result; claim released, a retry runs again",
            null);
        return new GateResult.Executed<>(id, value, claim, Completion.RELEASED);
      }
      ResultWriter.Prepared prepared = writer.prepare(policy, id, mapper.toBytes(value), failure);
      if (!writer.storeAndCommit(scope, resource, claim, prepared)) {
        throw new IllegalStateException(
            "the uncommitted claim of "
                + id
                + " in this"
                + " transaction was not found by its completion: was the transaction ended by the"
                + " action?");
      }
    } catch (CallFailure e) {
      throw e;
    } catch (CommitOutcomeUnknownException e) {
      throw commitUnknown(scope, resource, claim, e);
    } catch (RuntimeException | Error e) {
      // anything between the action and the commit (the mapper, the codec, the completion)
      // rolls the whole transaction back, the claim included: nothing took effect
      rollbackQuietly(scope, resource, e);
      events.emit(
          GateEvent.Type.RELEASED,
          claim,
          "the result could not be stored; the"
              + " transaction, the claim included, was rolled back: a retry runs again",
          e);
      throw new CallFailure(
          FailureReason.ROLLED_BACK,
          GateResult.Effect.NO,
          true,
          claim,
          "the action of "
              + id
              + " ran, but its result could not be stored, so its transaction was rolled back, the"
              + " claim included: none of its writes took effect; safe to retry",
          e);
    }
    return new GateResult.Executed<>(id, value, claim, Completion.STORED);
  }

  private <R> void commit(ClaimingScope<R> scope, R resource, ClaimOutcome.Acquired claim) {
    try {
      scope.commit(resource);
    } catch (RuntimeException e) {
      throw commitUnknown(scope, resource, claim, e);
    }
  }

  /** Rolls back what may be left, tells the listeners, and returns the exception to throw. */
  private <R> CallFailure commitUnknown(
      ClaimingScope<R> scope, R resource, ClaimOutcome.Acquired claim, RuntimeException e) {
    rollbackQuietly(scope, resource, e);
    events.emit(
        GateEvent.Type.STORE_FAILED,
        claim,
        "the commit failed: whether the"
            + " action's writes and its result were committed is not known",
        e);
    return CommitResolver.commitUnknown(
        claim,
        "the commit of "
            + claim.id()
            + " failed: the"
            + " action ran, and whether its writes and its result were committed is not known; a"
            + " retry with the same key finds out safely: it replays the result if they were, and"
            + " runs the action if they were not",
        e);
  }
}
