package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ActionFailedException;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.CommitOutcomeUnknownException;
import dev.mcpgate.core.CommitRolledBackException;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.GateResult.Completion;
import dev.mcpgate.core.LeaseLostException;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.ScopedAction;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TransactionScope;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the action of an acquired claim inside a unit of work and settles the claim after it, by the
 * failure rules: a result is stored (or, for a failure result, stored or released per policy); an
 * exception releases the claim, or fences it as unknown when the policy says the outcome is
 * unknown. Plain and transactional actions take this one path: a plain action runs in the {@link
 * DirectScope}, which has nothing to commit. The rules are the calling gate's policy's, passed with
 * each attempt.
 */
final class AttemptRunner {
  private static final Logger LOG = LoggerFactory.getLogger(Events.LOGGER);

  private final ClaimSteps steps;
  private final IdempotencyStore store;
  private final ResultWriter writer;
  private final Events events;
  private final DirectScope direct;
  private final LeaseRenewer leases;
  private final LateFencer fencer;

  AttemptRunner(
      ClaimSteps steps,
      IdempotencyStore store,
      ResultWriter writer,
      Events events,
      DirectScope direct,
      LeaseRenewer leases,
      LateFencer fencer) {
    this.leases = leases;
    this.fencer = fencer;
    this.steps = steps;
    this.store = store;
    this.writer = writer;
    this.events = events;
    this.direct = direct;
  }

  /**
   * @param sentNanos {@link System#nanoTime()} just before the claim was sent: the lease counts
   *     from there
   */
  <T, R> GateResult.Executed<T> run(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      long sentNanos,
      ResultMapper<T> mapper,
      TransactionScope<R> scope,
      ScopedAction<T, R> action) {
    boolean transactional = scope != direct;
    ClaimId id = claim.id();
    // renew from the start: a unit of work that waits for a pooled connection, and every write
    // after the action in the plain path, must not let the lease run out meanwhile
    Renewal renewal;
    try {
      renewal = leases.start(claim, policy, events, sentNanos);
    } catch (RuntimeException e) {
      release(claim, e);
      throw new StoreUnavailableException(
          "could not start renewing the lease of " + id + "; the action did not run; safe to retry",
          e);
    }
    try {
      return runRenewed(policy, claim, renewal, mapper, scope, action, transactional);
    } finally {
      renewal.attemptEnded(); // a fence still to be written keeps its lease renewed
    }
  }

  private <T, R> GateResult.Executed<T> runRenewed(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      Renewal renewal,
      ResultMapper<T> mapper,
      TransactionScope<R> scope,
      ScopedAction<T, R> action,
      boolean transactional) {
    ClaimId id = claim.id();
    R resource;
    try {
      resource = scope.begin();
    } catch (RuntimeException e) {
      renewal.finishing();
      release(claim, e);
      throw new StoreUnavailableException(
          "could not begin the unit of work for " + id + "; the action did not run; safe to retry",
          e);
    }
    try {
      T value;
      LeaseRenewer.Held held = leases.confirmBeforeAction(renewal, policy);
      if (held != LeaseRenewer.Held.YES) {
        renewal.finishing();
        rollbackQuietly(scope, resource, null);
        throw notStarted(claim, held);
      }
      try {
        value = action.run(resource, AttemptLease.context(steps, claim, renewal));
      } catch (Throwable t) {
        renewal.finishing();
        rollbackQuietly(scope, resource, t); // the transaction ends: it holds no row lock now
        settleFailure(policy, claim, renewal, t); // renewed until settled
        throw rethrow(id, t);
      }
      renewal.finishing(); // the writes below decide by their token, not a renewal's answer
      // a successful action whose thread was interrupted (a transport that cancelled just as it
      // returned) still has its result stored: the flag would make a pool refuse the connection
      boolean wasInterrupted = Thread.interrupted();
      try {
        return settleResult(policy, claim, renewal, value, mapper, scope, resource, transactional);
      } finally {
        if (wasInterrupted) {
          Thread.currentThread().interrupt();
        }
      }
    } finally {
      try {
        scope.close(resource);
      } catch (RuntimeException e) {
        LOG.warn("could not close the unit of work of {}", id, e);
      }
    }
  }

  /** After the action returned: store or release its result, and commit, per the rules. */
  private <T, R> GateResult.Executed<T> settleResult(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      Renewal renewal,
      T value,
      ResultMapper<T> mapper,
      TransactionScope<R> scope,
      R resource,
      boolean transactional) {
    ClaimId id = claim.id();
    try {
      boolean failure = mapper.isFailure(value);
      boolean releasing = failure && policy.failureMode() == GatePolicy.FailureMode.RELEASE;
      // the mapper and the codec (which may call a key service) run while the lease is renewed
      ResultWriter.Prepared prepared =
          releasing ? null : writer.prepare(policy, id, mapper.toBytes(value), failure);
      if (transactional) {
        // the completion locks the row in the action's transaction: a renewal would wait on it
        renewal.stop();
      }
      if (releasing) {
        boolean released = scope.release(resource, id, claim.token());
        if (!released && transactional) {
          rollbackQuietly(scope, resource, null);
          events.emit(
              GateEvent.Type.LEASE_LOST,
              claim,
              "failure result, but the lease had been taken over; rolled back",
              null);
          throw leaseLost(claim);
        }
        commit(scope, resource, claim, transactional, ClaimState.IN_PROGRESS);
        if (released) {
          events.emit(
              GateEvent.Type.RELEASED,
              claim,
              "failure result; claim released, a retry runs again",
              null);
        } else {
          events.emit(
              GateEvent.Type.LEASE_LOST,
              claim,
              "failure result, but the lease had been taken over",
              null);
        }
        return new GateResult.Executed<>(
            id, value, claim, released ? Completion.RELEASED : Completion.LEASE_LOST);
      }
      if (!writer.store(scope, resource, claim, prepared)) {
        rollbackQuietly(scope, resource, null);
        if (transactional) {
          throw leaseLost(claim);
        }
        return new GateResult.Executed<>(id, value, claim, Completion.LEASE_LOST);
      }
      commit(scope, resource, claim, transactional, ClaimState.COMPLETED);
      return new GateResult.Executed<>(id, value, claim, Completion.STORED);
    } catch (ResultTooLargeException
        | LeaseLostException
        | OutcomeUnknownException
        | CommitRolledBackException e) {
      throw e;
    } catch (RuntimeException | Error e) {
      // anything between the action and the commit: the mapper, the codec, the completion
      rollbackQuietly(scope, resource, e);
      if (transactional) {
        release(claim, e);
        if (e instanceof Error error) {
          throw error;
        }
        throw new StoreUnavailableException(
            "could not store the result of "
                + id
                + "; its transaction was rolled back, nothing took effect; safe to retry",
            e);
      }
      boolean storedAfterAll = fenceUnstored(policy, claim, renewal, e);
      if (e instanceof Error error) {
        throw error;
      }
      return new GateResult.Executed<>(
          id, value, claim, storedAfterAll ? Completion.STORED : Completion.STORE_FAILED);
    }
  }

  /**
   * An attempt whose lease ran out, by this process's clock, before its action could start (the
   * process was paused, or the unit of work waited for a connection longer than the lease), and
   * that the store did not confirm: the action is not started, since another attempt may hold the
   * key and be running it.
   */
  private RuntimeException notStarted(ClaimOutcome.Acquired claim, LeaseRenewer.Held held) {
    String why =
        "the lease of "
            + claim.id()
            + " (attempt "
            + claim.attempt()
            + ") ran out before its action could start (this process was paused, or waited longer"
            + " than the lease)";
    if (held == LeaseRenewer.Held.NO) {
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "the lease was taken over before the action started; the action did not run",
          null);
      return new LeaseLostException(
          why
              + ", and another attempt has taken the key over: the action did not run here; a"
              + " retry with the same key gets that attempt's result");
    }
    StoreUnavailableException unconfirmed =
        new StoreUnavailableException(
            why
                + ", and the store did not confirm it in time: the action did not run; safe to"
                + " retry with the same key",
            null);
    settle(
        claim,
        unconfirmed,
        () -> {
          if (store.release(claim.id(), claim.token())) {
            events.emit(
                GateEvent.Type.RELEASED,
                claim,
                "the lease could not be confirmed before the action; claim released, the action"
                    + " did not run",
                unconfirmed);
          }
        },
        "the lease could not be confirmed before the action and the claim could not be released;"
            + " the action did not run, and the key stays claimed until its lease expires");
    return unconfirmed;
  }

  private static LeaseLostException leaseLost(ClaimOutcome.Acquired claim) {
    return new LeaseLostException(
        "the lease of "
            + claim.id()
            + " (attempt "
            + claim.attempt()
            + ") was taken over by another attempt before completion; this attempt's transaction"
            + " was rolled back: none of its writes took effect");
  }

  /**
   * Commits; a commit that throws is resolved by asking the store, never guessed. The question is a
   * token-checked release: it waits for the row lock that this attempt's transaction held (its
   * completion or release wrote the row), so it is answered only once that transaction has ended,
   * even if its COMMIT was still on its way. A release that succeeds finds the row as it was before
   * the transaction (in progress, this attempt's token): it rolled back, and the key is free now.
   * Otherwise the row read back says: completed by this attempt (it committed), gone after a
   * release (it committed), another attempt's after a completion (the lease was lost: a completed
   * row is never taken over), another attempt's after a release (unknown: it may have committed and
   * been claimed again). A store that cannot be asked leaves it unknown.
   *
   * @param committedState COMPLETED for a stored result, IN_PROGRESS for a release (whose committed
   *     form is no row)
   * @throws CommitRolledBackException when the commit failed and nothing of it took effect
   * @throws CommitOutcomeUnknownException when whether it committed could not be found out
   */
  private <R> void commit(
      TransactionScope<R> scope,
      R resource,
      ClaimOutcome.Acquired claim,
      boolean transactional,
      ClaimState committedState) {
    try {
      scope.commit(resource);
    } catch (RuntimeException commitFailed) {
      if (!transactional) {
        throw commitFailed;
      }
      rollbackQuietly(scope, resource, commitFailed);
      ClaimId id = claim.id();
      boolean released;
      Optional<ClaimRecord> row;
      try {
        released = store.release(id, claim.token());
        row = released ? Optional.empty() : store.find(id);
      } catch (RuntimeException unreadable) {
        commitFailed.addSuppressed(unreadable);
        events.emit(
            GateEvent.Type.STORE_FAILED,
            claim,
            "the commit failed and" + " the claim could not be read back: the outcome is unknown",
            commitFailed);
        throw new CommitOutcomeUnknownException(
            "the commit of "
                + id
                + " failed and its claim"
                + " could not be read back, so whether the action's writes and its result were"
                + " committed is not known; the key stays claimed until its lease expires, and a"
                + " retry with the same key then finds out: it replays the result if they were, and"
                + " runs the action if they were not",
            commitFailed);
      }
      if (released) {
        events.emit(
            GateEvent.Type.RELEASED,
            claim,
            "the commit failed and rolled back; claim" + " released, a retry runs again",
            commitFailed);
        throw new CommitRolledBackException(
            "the commit of "
                + id
                + " failed and was rolled back"
                + " (the claim read back uncompleted, after the transaction ended): none of the"
                + " action's writes took effect, and the claim was released; safe to retry",
            commitFailed);
      }
      boolean ours = row.isPresent() && row.get().token().equals(claim.token());
      if (committedState == ClaimState.COMPLETED
          && ours
          && row.get().state() == ClaimState.COMPLETED) {
        LOG.info(
            "the commit of {} reported a failure, but the claim reads back completed by"
                + " this attempt: it committed",
            id,
            commitFailed);
        return;
      }
      if (committedState == ClaimState.IN_PROGRESS && row.isEmpty()) {
        LOG.info(
            "the commit of {} reported a failure, but the claim reads back released: it"
                + " committed",
            id,
            commitFailed);
        return;
      }
      if (committedState == ClaimState.IN_PROGRESS) {
        // another attempt holds the key: it took it after this release committed, or after
        // this transaction rolled back and the lease ran out; which, nobody can tell now
        events.emit(
            GateEvent.Type.STORE_FAILED,
            claim,
            "the commit of a release failed and"
                + " the key is held by another attempt: whether it committed is not known",
            commitFailed);
        throw new CommitOutcomeUnknownException(
            "the commit of "
                + id
                + " (a failure result,"
                + " releasing the key) failed, and the key is now held by another attempt: whether"
                + " the action's writes were committed is not known",
            commitFailed);
      }
      // a completed row is never taken over before it expires: another attempt holding the key
      // means this completion never committed (the lease had run out and was taken over)
      throw leaseLost(claim);
    }
  }

  /**
   * After the action failed: fence the key as unknown, or release it, per policy. An action that
   * was interrupted or cancelled (its thread interrupted, an {@link InterruptedException} or a
   * {@link CancellationException} among the causes) may have had its effect: it is fenced as
   * unknown, never released.
   */
  private void settleFailure(
      GatePolicy policy, ClaimOutcome.Acquired claim, Renewal renewal, Throwable failure) {
    if (policy.isOutcomeUnknown(failure) || interrupted(failure)) {
      fence(
          policy,
          claim,
          renewal,
          failure,
          "outcome unknown; the key is fenced until it is settled or its"
              + " fence of "
              + policy.unknownFence()
              + " runs out");
    } else {
      release(claim, failure);
    }
  }

  /**
   * @return true when the failure says the action was interrupted or cancelled midway
   */
  static boolean interrupted(Throwable failure) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InterruptedException
          || t instanceof CancellationException
          || t instanceof InterruptedIOException
          || t instanceof ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }

  /** The action ran but its result could not be stored: fence the key, the effect happened. */
  private boolean fenceUnstored(
      GatePolicy policy, ClaimOutcome.Acquired claim, Renewal renewal, Throwable failure) {
    events.emit(
        GateEvent.Type.STORE_FAILED,
        claim,
        "the action ran but its result could not be stored",
        failure);
    return fence(
        policy,
        claim,
        renewal,
        failure,
        "the action ran but its result could not be stored; the key is fenced"
            + " as unknown until it is settled or its fence of "
            + policy.unknownFence()
            + " runs out");
  }

  /**
   * Fences the key as unknown: the action ran, or may have. When the store cannot take the fence
   * now, the attempt's lease stays renewed (so that no retry takes the key over and runs the action
   * again) and the fence is written as soon as the store takes it ({@link LateFencer#fenceLater}).
   *
   * @return true when the fence found this attempt's result stored after all (a completion whose
   *     answer was lost): nothing to fence
   */
  private boolean fence(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      Renewal renewal,
      Throwable failure,
      String message) {
    boolean wasInterrupted = Thread.interrupted();
    try {
      FenceWriter.Fence written = FenceWriter.write(store, events, policy, claim, message, failure);
      if (written == FenceWriter.Fence.WRITTEN) {
        renewal.fenced();
      }
      return written == FenceWriter.Fence.STORED;
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      boolean kept;
      try {
        kept = fencer.fenceLater(renewal, policy, message, failure); // marks it fenced when kept
      } catch (RuntimeException cannotKeep) {
        failure.addSuppressed(cannotKeep); // a scheduler that refuses: the lease is not kept
        kept = false;
      }
      events.emit(
          GateEvent.Type.STORE_FAILED,
          claim,
          kept
              ? "the outcome is unknown and the key could not be fenced as such yet; its lease is"
                  + " kept renewed, so no retry runs the action meanwhile, and the fence is"
                  + " written as soon as the store takes it"
              : "the outcome is unknown and the key could not be fenced as such; it stays claimed"
                  + " until its lease expires",
          e);
      return false;
    } finally {
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void release(ClaimOutcome.Acquired claim, Throwable failure) {
    settle(
        claim,
        failure,
        () -> {
          if (store.release(claim.id(), claim.token())) {
            events.emit(
                GateEvent.Type.RELEASED,
                claim,
                "the action failed; claim released, a retry runs again",
                failure);
          } else {
            events.emit(
                GateEvent.Type.LEASE_LOST,
                claim,
                "the action failed, and the lease had been taken over",
                failure);
          }
        },
        "the action failed and the claim could not be released; the key stays claimed until"
            + " its lease expires");
  }

  /**
   * Writes a settlement with the thread's interrupt flag cleared (an interrupted thread cannot
   * borrow a pooled connection), and restores it after.
   */
  private void settle(
      ClaimOutcome.Acquired claim, Throwable failure, Runnable write, String ifFailed) {
    boolean wasInterrupted = Thread.interrupted();
    try {
      write.run();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      events.emit(GateEvent.Type.STORE_FAILED, claim, ifFailed, e);
    } finally {
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
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
