package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.GateResult.Completion;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ScopedAction;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
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
  private static final String NOT_STARTED = "the action did not start";

  private final ClaimSteps steps;
  private final ResultWriter writer;
  private final Events events;
  private final DirectScope direct;
  private final LeaseRenewer leases;
  private final FailureSettler settler;
  private final CommitResolver commits;
  private final CallsInFlight calls;

  AttemptRunner(
      ClaimSteps steps,
      ResultWriter writer,
      Events events,
      DirectScope direct,
      LeaseRenewer leases,
      FailureSettler settler,
      CommitResolver commits,
      CallsInFlight calls) {
    this.calls = calls;
    this.leases = leases;
    this.settler = settler;
    this.commits = commits;
    this.steps = steps;
    this.writer = writer;
    this.events = events;
    this.direct = direct;
  }

  /**
   * How a call came to its claim.
   *
   * @param sentNanos {@link Ticker#nanoTime()} just before the claim was sent: the lease counts
   *     from there
   * @param keySource where the call's key came from, for its {@code ACQUIRED} event
   * @param waited how long it waited on another attempt, for that event
   */
  record Arrived(long sentNanos, String keySource, Duration waited) {}

  /** Runs the claim's action, told as acquired to the listeners just before it starts. */
  <T, R> GateResult.Executed<T> run(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      Arrived arrived,
      ResultMapper<T> mapper,
      TransactionScope<R> scope,
      ScopedAction<T, R> action) {
    boolean transactional = scope != direct;
    ClaimId id = claim.id();
    // renew from the start: a unit of work that waits for a pooled connection, and every write
    // after the action in the plain path, must not let the lease run out meanwhile
    Renewal renewal;
    try {
      renewal = leases.start(claim, policy, events, arrived.sentNanos());
    } catch (RuntimeException e) {
      settler.release(claim, e, NOT_STARTED);
      if (leases.isClosed()) {
        throw CallFailure.gateClosed(
            "the gate closed before the action of " + id + " could start; it did not run", e);
      }
      throw CallFailure.storeUnavailable(
          null, // no attempt ran
          "could not start renewing the lease of " + id + "; the action did not run; safe to retry",
          e);
    }
    try {
      return runRenewed(policy, claim, arrived, renewal, mapper, scope, action, transactional);
    } finally {
      renewal.attemptEnded(); // a fence still to be written keeps its lease renewed
    }
  }

  private <T, R> GateResult.Executed<T> runRenewed(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      Arrived arrived,
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
      settler.release(claim, e, NOT_STARTED);
      throw CallFailure.storeUnavailable(
          null, // no attempt ran
          "could not begin the unit of work for " + id + "; the action did not run; safe to retry",
          e);
    }
    try {
      T value;
      // a gate closed meanwhile renews no lease: the action must not start (a policy without
      // renewal too), nor be told a store failure when the closed gate refused to ask the store;
      // nor may one start in a closing gate, whose drain would stop renewing it at its timeout
      LeaseRenewer.Held held =
          leases.isClosed() || calls.isDraining()
              ? null
              : leases.confirmBeforeAction(renewal, policy);
      if (held == LeaseRenewer.Held.YES && calls.isDraining()) {
        held = null; // the drain began while the store confirmed the lease: start nothing
      }
      if (held != LeaseRenewer.Held.YES) {
        renewal.finishing();
        rollbackQuietly(scope, resource, null);
        if (held == null || leases.isClosed()) {
          CallFailure closed =
              CallFailure.gateClosed(
                  "the gate closed before the action of " + id + " could start; it did not run",
                  null);
          settler.release(claim, closed, NOT_STARTED);
          throw closed;
        }
        throw settler.notStarted(claim, held);
      }
      events.acquired(claim, arrived.keySource(), arrived.waited());
      try {
        value = action.run(resource, AttemptLease.context(steps, claim, renewal));
      } catch (Throwable t) {
        renewal.finishing();
        rollbackQuietly(scope, resource, t); // the transaction ends: it holds no row lock now
        settler.settleFailure(policy, claim, renewal, t); // renewed until settled
        throw failed(policy, claim, renewal.isFenced(), t);
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
          throw CommitResolver.leaseLost(claim);
        }
        commits.commit(scope, resource, claim, transactional, ClaimState.IN_PROGRESS);
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
          throw CommitResolver.leaseLost(claim);
        }
        return new GateResult.Executed<>(id, value, claim, Completion.LEASE_LOST);
      }
      commits.commit(scope, resource, claim, transactional, ClaimState.COMPLETED);
      return new GateResult.Executed<>(id, value, claim, Completion.STORED);
    } catch (CallFailure e) {
      throw e;
    } catch (RuntimeException | Error e) {
      // anything between the action and the commit: the mapper, the codec, the completion
      rollbackQuietly(scope, resource, e);
      if (transactional) {
        settler.release(claim, e, "storing the result failed and the unit of work rolled back");
        throw new CallFailure(
            FailureReason.ROLLED_BACK,
            GateResult.Effect.NO,
            true,
            claim,
            "could not store the result of "
                + id
                + "; its transaction was rolled back, nothing took effect; safe to retry",
            e);
      }
      boolean storedAfterAll = settler.fenceUnstored(policy, claim, renewal, e);
      if (e instanceof Error error) {
        if (storedAfterAll) {
          throw error; // its result is stored after all: the Error is all there is to tell
        }
        // not ours to swallow: carried, and thrown on by orThrow() and the adapter
        boolean fenced = renewal.isFenced(); // written, or kept until the store takes it
        throw new CallFailure(
            FailureReason.OUTCOME_UNKNOWN,
            GateResult.Effect.YES,
            fenced && policy.reconciler() != null,
            claim,
            "the action of "
                + id
                + " ran, but its result could not be stored ("
                + e
                + (fenced
                    ? "); the key is fenced as unknown"
                    : "); the key could not be fenced: once its lease runs out, a retry with the"
                        + " same key may run the action again"),
            e);
      }
      return new GateResult.Executed<>(
          id, value, claim, storedAfterAll ? Completion.STORED : Completion.STORE_FAILED);
    }
  }

  /**
   * What an action that threw comes to, once its claim is settled: its outcome unknown when the key
   * was fenced as such (written, or kept until the store takes it), else the action's own failure.
   * An {@link Error} of the action's is its failure too, with its claim settled: the result carries
   * it, {@link GateResult#orThrow()} and the MCP adapter throw it on, never swallow it.
   *
   * @param fenced whether the key was fenced as unknown after it
   */
  static CallFailure failed(
      GatePolicy policy, ClaimOutcome.Acquired claim, boolean fenced, Throwable t) {
    if (fenced) {
      return new CallFailure(
          FailureReason.OUTCOME_UNKNOWN,
          GateResult.Effect.UNKNOWN,
          policy.reconciler() != null,
          claim,
          "the action of "
              + claim.id()
              + " failed, and its outcome is unknown: the key is fenced until it is settled",
          t);
    }
    boolean unknown = policy.isOutcomeUnknown(t) || FailureSettler.interrupted();
    return new CallFailure(
        FailureReason.ACTION_FAILED,
        unknown ? GateResult.Effect.UNKNOWN : GateResult.Effect.NO,
        !unknown,
        claim,
        "the action of " + claim.id() + " failed: " + t,
        t);
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
