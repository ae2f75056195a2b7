package dev.mcpgate.core;

import dev.mcpgate.core.GateResult.Completion;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TransactionScope;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the action of an acquired claim inside a unit of work and settles the claim after it, by
 * the failure rules: a result is stored (or, for a failure result, stored or released per
 * policy); an exception releases the claim, or fences it as unknown when the policy says the
 * outcome is unknown. Plain and transactional actions take this one path: a plain action runs in
 * the {@link DirectScope}, which has nothing to commit.
 */
final class AttemptRunner {
  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyGate.class);

  private final IdempotencyGate gate;
  private final IdempotencyStore store;
  private final GatePolicy policy;
  private final ResultWriter writer;
  private final Events events;
  private final DirectScope direct;
  private final LeaseKeeper leases;

  AttemptRunner(IdempotencyGate gate, IdempotencyStore store, GatePolicy policy,
      ResultWriter writer, Events events, DirectScope direct) {
    this.leases = new LeaseKeeper(store, policy, events);
    this.gate = gate;
    this.store = store;
    this.policy = policy;
    this.writer = writer;
    this.events = events;
    this.direct = direct;
  }

  <T, R> GateResult<T> run(ClaimOutcome.Acquired claim, ResultMapper<T> mapper,
      TransactionScope<R> scope, ScopedAction<T, R> action) {
    boolean transactional = scope != direct;
    ClaimId id = claim.id();
    R resource;
    try {
      resource = scope.begin();
    } catch (RuntimeException e) {
      settleFailure(claim, e);
      throw new StoreUnavailableException("could not begin the unit of work for " + id
          + "; the action did not run; safe to retry", e);
    }
    try {
      T value;
      LeaseKeeper.Renewal renewal = leases.start(claim);
      try {
        value = action.run(resource, new ClaimContext(gate, claim, renewal));
      } catch (Throwable t) {
        renewal.stop();
        rollbackQuietly(scope, resource, t);
        settleFailure(claim, t);
        throw rethrow(id, t);
      }
      renewal.stop();   // before the result's write, which the renewal must not race
      try {
        boolean failure = mapper.isFailure(value);
        if (failure && policy.failureMode() == GatePolicy.FailureMode.RELEASE) {
          boolean released = scope.release(resource, id, claim.token());
          if (!released && transactional) {
            rollbackQuietly(scope, resource, null);
            events.emit(GateEvent.Type.LEASE_LOST, claim,
                "failure result, but the lease had been taken over; rolled back", null);
            throw leaseLost(claim);
          }
          commit(scope, resource, claim, transactional, ClaimState.IN_PROGRESS);
          if (released) {
            events.emit(GateEvent.Type.RELEASED, claim,
                "failure result; claim released, a retry runs again", null);
          } else {
            events.emit(GateEvent.Type.LEASE_LOST, claim,
                "failure result, but the lease had been taken over", null);
          }
          return new GateResult.Executed<>(id, value, claim,
              released ? Completion.RELEASED : Completion.LEASE_LOST);
        }
        if (!writer.store(scope, resource, claim, mapper.toBytes(value), failure)) {
          rollbackQuietly(scope, resource, null);
          if (transactional) {
            throw leaseLost(claim);
          }
          return new GateResult.Executed<>(id, value, claim, Completion.LEASE_LOST);
        }
        commit(scope, resource, claim, transactional, ClaimState.COMPLETED);
        return new GateResult.Executed<>(id, value, claim, Completion.STORED);
      } catch (ResultTooLargeException | LeaseLostException | OutcomeUnknownException
          | CommitRolledBackException e) {
        throw e;
      } catch (RuntimeException e) {
        rollbackQuietly(scope, resource, e);
        if (transactional) {
          settleFailure(claim, e);
          throw new StoreUnavailableException("could not store the result of " + id
              + "; its transaction was rolled back, nothing took effect; safe to retry", e);
        }
        events.emit(GateEvent.Type.STORE_FAILED, claim,
            "the action ran but its result could not be stored; the key stays claimed until"
                + " its lease expires", e);
        return new GateResult.Executed<>(id, value, claim, Completion.STORE_FAILED);
      }
    } finally {
      try {
        scope.close(resource);
      } catch (RuntimeException e) {
        LOG.warn("could not close the unit of work of {}", id, e);
      }
    }
  }

  private static LeaseLostException leaseLost(ClaimOutcome.Acquired claim) {
    return new LeaseLostException("the lease of " + claim.id() + " (attempt " + claim.attempt()
        + ") was taken over by another attempt before completion; this attempt's transaction was"
        + " rolled back: none of its writes took effect");
  }

  /**
   * Commits; a commit that throws is resolved by reading the claim back, never guessed: the row
   * as the transaction left it ({@code committedState} with this attempt's token, or gone for a
   * release) means it committed; the row as it was before (in progress with this token) means it
   * rolled back; an unreadable row means the outcome is unknown.
   *
   * @param committedState COMPLETED for a stored result, IN_PROGRESS for a release (whose
   *     committed form is no row)
   * @throws CommitRolledBackException when the commit failed and nothing of it took effect
   * @throws OutcomeUnknownException when whether it committed could not be found out
   */
  private <R> void commit(TransactionScope<R> scope, R resource, ClaimOutcome.Acquired claim,
      boolean transactional, ClaimState committedState) {
    try {
      scope.commit(resource);
    } catch (RuntimeException commitFailed) {
      if (!transactional) {
        throw commitFailed;
      }
      ClaimId id = claim.id();
      Optional<ClaimRecord> row;
      try {
        row = store.find(id);
      } catch (RuntimeException unreadable) {
        commitFailed.addSuppressed(unreadable);
        events.emit(GateEvent.Type.STORE_FAILED, claim, "the commit failed and"
            + " the claim could not be read back: the outcome is unknown", commitFailed);
        throw new OutcomeUnknownException("the commit of " + id + " failed and its claim could"
            + " not be read back, so whether the action's writes and its result were committed"
            + " is not known; the key stays claimed until its lease expires, and a retry with the"
            + " same key then finds out", commitFailed);
      }
      boolean ours = row.isPresent() && row.get().token().equals(claim.token());
      boolean stillInProgress = ours && row.get().state() == ClaimState.IN_PROGRESS;
      if (committedState == ClaimState.COMPLETED && ours
          && row.get().state() == ClaimState.COMPLETED) {
        LOG.info("the commit of {} reported a failure, but the claim reads back completed by"
            + " this attempt: it committed", id, commitFailed);
        return;
      }
      if (committedState == ClaimState.IN_PROGRESS && !stillInProgress) {
        LOG.info("the commit of {} reported a failure, but the claim reads back released: it"
            + " committed", id, commitFailed);
        return;
      }
      if (stillInProgress) {
        settleFailure(claim, commitFailed);
        throw new CommitRolledBackException("the commit of " + id + " failed and was rolled back"
            + " (the claim reads back uncompleted): none of the action's writes took effect, and"
            + " the claim was released; safe to retry", commitFailed);
      }
      throw leaseLost(claim);
    }
  }

  /** After the action failed: fence the key as unknown, or release it, per policy. */
  private void settleFailure(ClaimOutcome.Acquired claim, Throwable failure) {
    ClaimId id = claim.id();
    try {
      if (policy.isOutcomeUnknown(failure)) {
        if (store.markUnknown(id, claim.token(), policy.unknownFence())) {
          events.emit(GateEvent.Type.MARKED_UNKNOWN, claim,
              "outcome unknown; the key is fenced until its lease expires", failure);
        } else {
          events.emit(GateEvent.Type.LEASE_LOST, claim,
              "outcome unknown, and the lease had been taken over", failure);
        }
      } else if (store.release(id, claim.token())) {
        events.emit(GateEvent.Type.RELEASED, claim,
            "the action failed; claim released, a retry runs again", failure);
      } else {
        events.emit(GateEvent.Type.LEASE_LOST, claim,
            "the action failed, and the lease had been taken over", failure);
      }
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      events.emit(GateEvent.Type.STORE_FAILED, claim,
          "the action failed and the claim could not be released; the key stays claimed until"
              + " its lease expires", e);
    }
  }

  static RuntimeException rethrow(ClaimId id, Throwable t) {
    if (t instanceof RuntimeException re) {
      return re;
    }
    if (t instanceof Error error) {
      throw error;
    }
    return new ActionFailedException("the action of " + id + " failed", t);
  }

  static <R> void rollbackQuietly(TransactionScope<R> scope, R resource, Throwable cause) {
    try {
      scope.rollback(resource);
    } catch (RuntimeException e) {
      if (cause != null) {
        cause.addSuppressed(e);
      } else {
        LOG.warn("rollback failed", e);
      }
    }
  }
}
